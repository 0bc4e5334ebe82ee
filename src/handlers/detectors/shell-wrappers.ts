// Programs that run another program (`sudo`, `env`, `nice`, `timeout`, `xargs`, `chroot`,
// `flock`, `su -c`, `script -c`, `watch`, …): how each one's own options and operands are
// skipped to reach the command it runs, or the script string it hands to a shell.

/** How one wrapper is read. */
export interface WrapperSpec {
  /** Options whose value is the next word (`sudo -u root`). */
  valued: ReadonlySet<string>
  /** Operands before the command (`chroot NEWROOT`, `timeout 5`, `flock FILE`). */
  operands: number
  /** Options whose value is a script run by a shell (`su -c`, `script -c`, `flock -c`). */
  script: ReadonlySet<string>
  /** After its options no command follows: only its script option runs something (`su`, `script`). */
  scriptOnly: boolean
  /** Its remaining words are joined and run by a shell (`watch`, `sg GROUP CMD`). */
  joins: boolean
  /** The command also takes arguments from stdin (`xargs`, `parallel`). */
  stdin: boolean
  /**
   * Only changes how the program runs (priority, time limit, environment): the allowlist
   * mode checks the program it runs, not the wrapper itself.
   */
  transparent: boolean
  /** Options after which nothing is run (`command -v NAME` only prints). */
  noRun: ReadonlySet<string>
}

function spec(fields: {
  valued?: string
  operands?: number
  script?: string
  scriptOnly?: boolean
  joins?: boolean
  stdin?: boolean
  transparent?: boolean
  noRun?: string
}): WrapperSpec {
  const words = (text: string | undefined) => new Set(text ? text.split(' ') : [])
  return {
    valued: words(fields.valued),
    operands: fields.operands ?? 0,
    script: words(fields.script),
    scriptOnly: fields.scriptOnly === true,
    joins: fields.joins === true,
    stdin: fields.stdin === true,
    transparent: fields.transparent === true,
    noRun: words(fields.noRun),
  }
}

const SU = { valued: '-s --shell -g --group -G --supp-group -w', script: '-c --command --session-command' }

/** The wrappers, by program name. `env` is read apart (assignments, `-S`). */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  // Transparent: they change how a program runs, not what runs.
  env: spec({ valued: '-u --unset -C --chdir', transparent: true }),
  nice: spec({ valued: '-n --adjustment', transparent: true }),
  nohup: spec({ transparent: true }),
  time: spec({ valued: '-f -o --format --output', transparent: true }),
  timeout: spec({ valued: '-s --signal -k --kill-after', operands: 1, transparent: true }),
  stdbuf: spec({ valued: '-i -o -e --input --output --error', transparent: true }),
  ionice: spec({ valued: '-c -n --class --classdata', transparent: true }),
  chrt: spec({ operands: 1, transparent: true }),
  taskset: spec({ operands: 1, transparent: true }),
  command: spec({ transparent: true, noRun: '-v -V' }),
  builtin: spec({ transparent: true }),
  exec: spec({ valued: '-a', transparent: true }),
  unbuffer: spec({ transparent: true }),
  caffeinate: spec({ valued: '-t -w', transparent: true }),
  coproc: spec({ transparent: true }),
  xargs: spec({
    valued: '-I -n -P -d -L -s -E -a --max-args --delimiter --max-procs --arg-file --max-lines',
    stdin: true,
    transparent: true,
  }),
  // Checked themselves in allowlist mode: they change who or where a program runs.
  parallel: spec({ valued: '-j -S --jobs --sshlogin', stdin: true }),
  sudo: spec({ valued: '-u -g -h -p -C -r -t -U -D -R -T --user --group --host --prompt --chdir' }),
  doas: spec({ valued: '-u -C' }),
  pkexec: spec({ valued: '--user' }),
  su: spec({ ...SU, scriptOnly: true }),
  runuser: spec({ ...SU, valued: `${SU.valued} -u --user` }),
  sg: spec({ operands: 1, script: '-c', joins: true }),
  script: spec({
    valued: '-I -O -B -T -E -m --log-in --log-out --log-io --log-timing --echo --logging-format',
    script: '-c --command',
    scriptOnly: true,
  }),
  chroot: spec({ valued: '--userspec --groups', operands: 1 }),
  unshare: spec({ valued: '-S -G -R -w --setuid --setgid --root --wd --propagation' }),
  nsenter: spec({ valued: '-t -S -G -r -w --target --setuid --setgid --root --wd' }),
  setsid: spec({}),
  flock: spec({ valued: '-w -E --wait --timeout --conflict-exit-code', operands: 1, script: '-c --command' }),
  watch: spec({ valued: '-n --interval -q --equexit', joins: true }),
  busybox: spec({}),
  toybox: spec({}),
  firejail: spec({}),
  proxychains: spec({ valued: '-f' }),
  proxychains4: spec({ valued: '-f' }),
  torsocks: spec({}),
  tsocks: spec({}),
  fakeroot: spec({}),
  faketime: spec({ operands: 1 }),
  strace: spec({ valued: '-o -e -p -s -u -E -P -I -b -X' }),
  ltrace: spec({ valued: '-o -e -p -s -u -n' }),
  valgrind: spec({}),
  'systemd-run': spec({ valued: '-p -u -E -M --property --unit --setenv --machine --uid --gid --slice' }),
  'xvfb-run': spec({ valued: '-n -s -f -e -p --server-num --server-args --auth-file --error-file' }),
  'dbus-launch': spec({}),
}

/** Where a wrapper's own words end and what follows them. */
export interface Peeled {
  /** Index of the first word after the wrapper's own words. */
  end: number
  /** The script string of a script option (`su -c STRING`), if any. */
  script?: string
  /** Nothing runs after the wrapper's own words (or only its script). */
  stops: boolean
}

/**
 * Skips a wrapper's options and operands in `words` from `at` (the wrapper's name).
 * Combined short options take a value when their last letter does (`sudo -iu root`).
 */
export function peelWrapper(
  name: string,
  wrapper: WrapperSpec,
  words: readonly string[],
  at: number,
): Peeled {
  if (wrapper.scriptOnly) {
    // `su - root -c CMD`: the script option may come after the user name.
    for (let j = at + 1; j < words.length; j++)
      if (isScriptOption(words[j] as string, wrapper.script))
        return { end: words.length, script: words[j + 1] ?? '', stops: true }
    return { end: words.length, stops: true }
  }
  let i = at + 1
  let operands = 0
  let script: string | undefined
  while (i < words.length) {
    const word = words[i] as string
    if (word === '--') {
      i++
      break
    }
    if (word.length > 1 && word.startsWith('-')) {
      // Past its operands, a wrapper reads only its script option (`flock FILE -c CMD`).
      const scriptOption = isScriptOption(word, wrapper.script)
      if (operands > 0 && operands >= wrapper.operands && !scriptOption) break
      if (wrapper.noRun.has(word)) return { end: i + 1, stops: true }
      if (scriptOption) {
        script = words[i + 1]
        i += 2
        continue
      }
      // `env -S "…"`: the caller splits the string into words.
      if (name === 'env' && (word === '-S' || word === '--split-string')) return { end: i, stops: false }
      i += takesValue(word, wrapper.valued) ? 2 : 1
      continue
    }
    if (name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i++
      continue
    }
    if (operands < wrapper.operands) {
      operands++
      i++
      continue
    }
    break
  }
  if (script !== undefined) return { end: i, script, stops: true }
  return { end: i, stops: wrapper.scriptOnly }
}

/** `-c`, `--command`, or short options ending in the script letter (`script -qc CMD`). */
function isScriptOption(word: string, script: ReadonlySet<string>): boolean {
  if (script.size === 0) return false
  if (script.has(word)) return true
  return word.length > 2 && !word.startsWith('--') && script.has(`-${word[word.length - 1]}`)
}

function takesValue(word: string, valued: ReadonlySet<string>): boolean {
  if (valued.has(word)) return true
  if (word.startsWith('--') || word.includes('=')) return false
  // `-iu root`: the last letter takes the next word when it is a valued option.
  return word.length > 2 && valued.has(`-${word[word.length - 1]}`)
}
