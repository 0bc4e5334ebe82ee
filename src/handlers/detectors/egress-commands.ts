// Where network commands in a text connect to: the arguments of `curl`, `wget`, `ssh`,
// `scp`, `rsync`, `sftp`, `nc`, `telnet`, `git push/clone/fetch`, `ping`, `dig` and their
// kin are read as those programs read them (quotes and backslashes removed, options that
// take a value skipped, `[user@]host:path` split), so `curl evil\.io`, `curl 0x7f.1`,
// `scp f evil.com:/tmp` and `ssh -J jump.evil deploy@10.0.0.5` name their hosts. A target
// that depends on a variable, a substitution or a file of URLs is reported as unresolved.

import type { WorkBudget } from './budget.js'

/** A place a command would connect to, found in the text. */
export interface CommandTarget {
  start: number
  end: number
  /** What the URL parser reads (`http://evil.io`, `ssh://host`), or why it cannot be known. */
  url?: string
  unresolved?: string
}

/** How a program takes its destination. */
type Reads = 'url' | 'host' | 'hostpath' | 'git'

interface Program {
  reads: Reads
  /** Options followed by a value. */
  valued: ReadonlySet<string>
  /** Options whose value is itself a host or URL (`--proxy`, `-J`). */
  hostOptions?: ReadonlySet<string>
  /** True for programs that listen instead with `-l` (`nc -l 4444`). */
  listens?: boolean
}

const PROGRAMS: Record<string, Program> = {}
const set = (...items: string[]) => new Set(items)
const CURL_VALUED = set(
  ...'-o -H -d -X -u -A -e -T -F -b -c -m -w -r -C -E -y -Y -z -P -Q -t -U -K --output --header --data --data-raw --data-binary --data-urlencode --data-ascii --json --request --user --user-agent --referer --upload-file --form --form-string --cookie --cookie-jar --max-time --connect-timeout --write-out --range --continue-at --cert --key --cacert --capath --retry --retry-delay --retry-max-time --limit-rate --max-filesize --interface --dns-servers --time-cond --output-dir --variable --ftp-port --quote --telnet-option --trace --trace-ascii --stderr --unix-socket --abstract-unix-socket --proto --proto-redir --oauth2-bearer --cert-type --key-type --pass --ciphers --crlfile --local-port --mail-from --mail-rcpt --noproxy --pinnedpubkey --proxy-user --config --expect100-timeout --resolve --connect-to --url --proxy --preproxy --socks4 --socks4a --socks5 --socks5-hostname -x'.split(
    ' ',
  ),
)
for (const name of ['curl', 'curlie'])
  PROGRAMS[name] = {
    reads: 'url',
    valued: CURL_VALUED,
    hostOptions: set(
      '--url',
      '-x',
      '--proxy',
      '--preproxy',
      '--socks4',
      '--socks4a',
      '--socks5',
      '--socks5-hostname',
    ),
  }
const WGET_VALUED = set(
  ...'-O -o -a -P -U -e -t -T -w -Q -l -A -R -D -I -X -i -B --output-document --output-file --append-output --directory-prefix --user-agent --header --execute --post-data --post-file --body-data --body-file --method --user --password --http-user --http-password --tries --timeout --wait --quota --level --accept --reject --domains --include-directories --exclude-directories --input-file --bind-address --referer --load-cookies --save-cookies --ca-certificate --certificate --private-key --base'.split(
    ' ',
  ),
)
for (const name of ['wget', 'wget2']) PROGRAMS[name] = { reads: 'url', valued: WGET_VALUED }
for (const name of ['http', 'https', 'xh', 'xhs', 'aria2c', 'lynx', 'w3m', 'links', 'elinks'])
  PROGRAMS[name] = { reads: 'url', valued: set('-a', '--auth', '-o', '--output', '-d', '--dir', '-v') }
const SSH_VALUED = set(...'-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -P'.split(' '))
for (const name of ['ssh', 'sftp', 'mosh', 'autossh', 'telnet', 'ftp', 'tftp'])
  PROGRAMS[name] = { reads: 'host', valued: SSH_VALUED, hostOptions: set('-J') }
for (const name of [
  'nc',
  'ncat',
  'netcat',
  'ping',
  'ping6',
  'traceroute',
  'tracepath',
  'dig',
  'nslookup',
  'host',
  'whois',
  'nmap',
])
  PROGRAMS[name] = {
    reads: 'host',
    valued: set('-p', '-s', '-w', '-i', '-c', '-t', '-q', '-W', '-x', '-e'),
    listens: true,
  }
for (const name of ['scp', 'rsync'])
  PROGRAMS[name] = {
    reads: 'hostpath',
    valued: set(
      '-P',
      '-i',
      '-F',
      '-o',
      '-c',
      '-l',
      '-S',
      '-J',
      '-e',
      '--rsh',
      '--port',
      '--exclude',
      '--include',
      '--filter',
      '--rsync-path',
      '--log-file',
      '--password-file',
    ),
    hostOptions: set('-J'),
  }
PROGRAMS.git = {
  reads: 'git',
  valued: set(
    '-C',
    '-c',
    '--git-dir',
    '--work-tree',
    '-o',
    '--push-option',
    '-b',
    '--branch',
    '--depth',
    '--origin',
    '--reference',
    '--template',
  ),
}
/** The git sub-commands that talk to a remote, and where their remote argument starts. */
const GIT_REMOTE = new Set(['push', 'clone', 'fetch', 'pull', 'ls-remote', 'archive', 'remote', 'submodule'])

/** Schemes a URL argument is read with as written; any other `name:` prefix is `host:port`. */
const URL_SCHEMES =
  /^(?:https?|ftps?|wss?|file|scp|sftp|dict|gopher|imaps?|ldaps?|mqtts?|pop3s?|rtsp|smbs?|smtps?|telnet|tftp|ssh|git):/i

/** A word of a command, quotes and backslashes removed. */
interface Word {
  text: string
  start: number
  end: number
  /** True when it depends on a variable or substitution. */
  dynamic: boolean
}

const COMMAND_WORD = /(?:^|[\s;&|(`$"'{])(?:[\w./-]*\/)?([a-z][a-z0-9-]{1,13}2?)(?=[ \t])/g
const SEPARATOR = new Set([';', '&', '|', '\n', ')', '<', '>'])
/** A variable or substitution inside a word. */
const EXPANSION = /\$\([^)]*\)?|\$\{[^}]*\}?|\$[A-Za-z_][A-Za-z0-9_]*|`[^`]*`?/g

/** Where the `$(…)` or backtick substitution opening at `from` ends (bounded, unclosed = end). */
function substitutionEnd(text: string, from: number): number {
  if (text[from] === '`') {
    const close = text.indexOf('`', from + 1)
    return close < 0 ? text.length : close + 1
  }
  let depth = 0
  for (let i = from + 1; i < text.length && i < from + 4096; i++) {
    if (text[i] === '(') depth++
    else if (text[i] === ')' && --depth === 0) return i + 1
  }
  return Math.min(text.length, from + 4096)
}

/**
 * The URL a word with variables still names when they only fill the leftmost labels of its
 * host (`$(whoami).exfil.evil.io` is under `exfil.evil.io` whatever runs), else undefined.
 */
function staticUrl(word: string, prefix: string): string | undefined {
  const marked = word.replace(EXPANSION, '\u0001')
  const host = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^@/]*@)?([^/:?#]*)/i.exec(marked)?.[1] ?? ''
  const labels = host.split('.')
  if (labels.length < 3 || labels.slice(-2).some((l) => l.includes('\u0001') || l === '')) return undefined
  const fixed = marked.replace(/\u0001/g, 'x')
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(fixed) ? fixed : `${prefix}${fixed}`
}

/** Reads the words after `from` up to the end of the command (a separator or 64 words). */
function readWords(text: string, from: number, budget: WorkBudget): Word[] {
  const words: Word[] = []
  let i = from
  while (i < text.length && words.length < 64) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++
    if (i >= text.length || SEPARATOR.has(text[i] as string)) break
    const start = i
    let out = ''
    let dynamic = false
    while (i < text.length) {
      const c = text[i] as string
      if (c === ' ' || c === '\t' || SEPARATOR.has(c)) break
      if (c === '\\') {
        out += text[i + 1] ?? ''
        i += 2
      } else if (c === "'" || c === '"') {
        const close = text.indexOf(c, i + 1)
        const end = close < 0 ? text.length : close
        const inner = text.slice(i + 1, end)
        if (c === '"' && /[$`]/.test(inner)) dynamic = true
        out += c === '"' ? inner.replace(/\\(.)/g, '$1') : inner
        i = end + 1
      } else if ((c === '$' && text[i + 1] === '(') || c === '`') {
        // A substitution inside the word: its text is kept, its value is not known.
        const end = substitutionEnd(text, i)
        out += text.slice(i, end)
        dynamic = true
        i = end
      } else {
        if (c === '$') dynamic = true
        out += c
        i++
      }
    }
    budget.charge(i - start + 8)
    words.push({ text: out, start, end: Math.min(i, text.length), dynamic })
  }
  return words
}

/** `[user@]host[:port]` of an ssh-style destination, or undefined. */
function sshHost(word: string): string | undefined {
  const at = word.lastIndexOf('@')
  const host = at >= 0 ? word.slice(at + 1) : word
  return host === '' ? undefined : host
}

/** True for a word that can only be a host when it is read as one by position. */
function hostLike(word: string, commandPosition: boolean): boolean {
  if (commandPosition) return true
  const bare = word.replace(/[.,;:!?)]+$/, '')
  return /[.:/[]|^\d+$|^localhost$/i.test(bare)
}

/** Every place the network commands in `text` would connect to. */
export function commandTargets(text: string, budget: WorkBudget): CommandTarget[] {
  const out: CommandTarget[] = []
  COMMAND_WORD.lastIndex = 0
  for (let m = COMMAND_WORD.exec(text); m !== null; m = COMMAND_WORD.exec(text)) {
    if (!budget.charge(m[0].length + 8)) break
    const name = m[1] as string
    const program = Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : undefined
    if (!program) continue
    const nameStart = m.index + m[0].length - name.length
    const before = text.slice(Math.max(0, nameStart - 3), nameStart).replace(/[\w./-]*$/, '')
    // At the start of a command (not in prose): a single plain word is a host too.
    const commandPosition =
      nameStart === 0 || /(?:^|[;&|(`\n]|\$\()\s*$/.test(before) || /^\s*$/.test(text.slice(0, nameStart))
    readTargets(name, program, readWords(text, nameStart + name.length, budget), commandPosition, out)
  }
  return out
}

function readTargets(
  name: string,
  program: Program,
  words: Word[],
  commandPosition: boolean,
  out: CommandTarget[],
): void {
  const add = (word: Word, url: string) => {
    if (!word.dynamic) {
      out.push({ start: word.start, end: word.end, url })
      return
    }
    const known = staticUrl(word.text, program.reads === 'url' ? 'http://' : 'ssh://')
    out.push({
      start: word.start,
      end: word.end,
      unresolved: `${name} target ${word.text.slice(0, 80)} depends on a variable`,
      ...(known ? { url: known } : {}),
    })
  }
  let i = 0
  // `nc -l 4444` listens; it connects nowhere.
  if (program.listens && words.some((w) => /^-[a-z]*l/.test(w.text))) return
  if (program.reads === 'git') {
    const sub = words.find((w) => !w.text.startsWith('-'))
    if (!sub || !GIT_REMOTE.has(sub.text)) return
    i = words.indexOf(sub) + 1
  }
  let found = false
  let positional = 0
  for (; i < words.length; i++) {
    const word = words[i] as Word
    const text = word.text
    if (text.startsWith('-')) {
      const eq = text.indexOf('=')
      const option = eq > 0 ? text.slice(0, eq) : text
      const value = eq > 0 ? { ...word, text: text.slice(eq + 1) } : words[i + 1]
      if (program.hostOptions?.has(option) && value) {
        add(
          value,
          value.text.includes('://')
            ? value.text
            : `${program.reads === 'url' ? 'http' : 'ssh'}://${sshHost(value.text) ?? ''}`,
        )
        found = true
      } else if ((option === '--resolve' || option === '--connect-to') && value) {
        const parts = value.text.split(':')
        const address = parts
          .slice(2, option === '--resolve' ? undefined : 3)
          .join(':')
          .replace(/^\[|\]$/g, '')
        if (address) add(value, `http://${address.includes(':') ? `[${address}]` : address}`)
      } else if (
        (option === '-K' || option === '--config' || option === '-i' || option === '--input-file') &&
        value
      )
        out.push({
          start: word.start,
          end: value.end,
          unresolved: `${name} reads its targets from ${value.text}`,
        })
      if (eq < 0 && program.valued.has(option)) i++
      continue
    }
    positional++
    if (program.reads === 'url' || program.reads === 'git') {
      if (!hostLike(text, commandPosition) && !word.dynamic) continue
      // scp-style `host:path` in git; URLs with a scheme are read by the URL scanner.
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
        found = true
        continue
      }
      const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)/.exec(text)
      if (program.reads === 'git') {
        if (scp) add(word, `ssh://${scp[1]}`)
        found = found || scp !== null || text.includes('://')
        continue
      }
      add(word, URL_SCHEMES.test(text) ? text : `http://${text}`)
      found = true
    } else if (program.reads === 'host') {
      if (positional > 1 || (!hostLike(text, commandPosition) && !word.dynamic)) continue
      const host = sshHost(text)
      if (host) add(word, /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `ssh://${bracket(host)}`)
      found = true
    } else {
      const scp = /^(?:[^@/\s]+@)?(\[[^\]]+\]|[^:/\s]+)::?(?!\/\/)/.exec(text)
      if (scp) {
        add(word, `ssh://${scp[1]}`)
        found = true
      } else if (word.dynamic) add(word, '')
    }
  }
  if (
    !found &&
    commandPosition &&
    program.reads !== 'git' &&
    program.reads !== 'hostpath' &&
    words.length > 0
  )
    out.push({
      start: (words[0] as Word).start,
      end: (words.at(-1) as Word).end,
      unresolved: `${name} has no target that can be read`,
    })
}

/** An IPv6 address as a URL host. */
function bracket(host: string): string {
  return host.includes(':') && !host.startsWith('[') && (host.match(/:/g)?.length ?? 0) > 1
    ? `[${host}]`
    : host
}
