// The package as a user gets it: `npm pack` of this checkout, installed from the tarball into
// an empty project (npm's cache first, the registry only for what it lacks), then
// `warden check`, `warden serve` and an adapter import run from that project, never from
// this checkout. Needs dist/ built (`npm ci` or `npm run build`).

import { type ChildProcess, execFile, spawn } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'

const exec = promisify(execFile)
const npm = (args: string[], cwd: string) =>
  exec('npm', args, {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    maxBuffer: 64 << 20,
  })

interface PackedFile {
  path: string
}

let work: string
let app: string
let files: string[]
let installLog: string

/** The installed `warden` command, run in the user's project. */
function warden(
  args: string[],
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(app, 'node_modules', '.bin', 'warden'), args, { cwd: app })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(stdin)
  })
}

beforeAll(async () => {
  if (
    !existsSync(join(ROOT, 'dist', 'cli', 'index.js')) ||
    !existsSync(join(ROOT, 'dist', 'web', 'index.html'))
  )
    throw new Error('dist/ is not built: run "npm run build" first')
  work = mkdtempSync(join(tmpdir(), 'warden-package-'))
  // Scripts are not run: dist/ is already built, and packing must not need them.
  const packed = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)
  const [info] = JSON.parse(packed.stdout) as [{ filename: string; files: PackedFile[] }]
  files = info.files.map((f) => f.path)
  app = join(work, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
  // better-sqlite3's install script fetches a prebuilt binary from outside the npm registry
  // (or compiles one); this machine reaches only the registry, so the install runs without
  // scripts and the binary this checkout already has is put where the script would put it.
  const installed = await npm(
    ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', join(work, info.filename)],
    app,
  )
  installLog = installed.stdout + installed.stderr
  const binary = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')
  mkdirSync(join(app, binary, '..'), { recursive: true })
  copyFileSync(join(ROOT, binary), join(app, binary))
}, 120_000)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

describe('the packed package', () => {
  it('ships the compiled code, the built UI, the command and the examples, and nothing of the checkout', () => {
    for (const path of [
      'bin/warden.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/index.js',
      'dist/adapters/claude-agent-sdk/index.js',
      'dist/adapters/claude-agent-sdk/index.d.ts',
      'dist/web/index.html',
      'examples/warden.yaml',
      'README.md',
      'package.json',
    ])
      expect(files, path).toContain(path)
    expect(files.some((f) => f.startsWith('dist/web/assets/') && f.endsWith('.js'))).toBe(true)
    const unwanted = files.filter((f) =>
      /^(src|test|bench|scripts|web|node_modules|\.warden)\/|\.map$|\.test\.[cm]?[jt]sx?$|\.build-stamp$|\.tsbuildinfo$/.test(
        f,
      ),
    )
    expect(unwanted).toEqual([])
    // No absolute path of the machine that packed it (source maps, stamps) inside.
    const installedRoot = join(app, 'node_modules', 'warden')
    for (const file of files.filter((f) => /\.(js|json|d\.ts|html)$/.test(f))) {
      expect(readFileSync(join(installedRoot, file), 'utf8'), file).not.toContain(ROOT)
    }
  })

  it('installs with no install-time script of its own and no engine warnings on this Node', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'warden', 'package.json'), 'utf8'))
    for (const script of ['preinstall', 'install', 'postinstall'])
      expect(manifest.scripts?.[script]).toBeUndefined()
    expect(installLog).not.toContain('EBADENGINE')
    for (const [subpath, target] of Object.entries(manifest.exports as Record<string, { import: string }>)) {
      expect(existsSync(join(app, 'node_modules', 'warden', target.import)), subpath).toBe(true)
    }
  })

  it('runs `warden check` from the project', async () => {
    writeFileSync(
      join(app, 'warden.yaml'),
      'hooks:\n  - name: no-rm\n    event: tool.pre\n    if: "tool_input.cmd.contains(\'rm -rf\')"\n    handler: { type: deny, reason: no rm -rf here }\n',
    )
    const event = JSON.stringify({
      event: 'tool.pre',
      payload: { tool: { name: 'exec', input: { cmd: 'rm -rf /' } } },
    })
    const denied = await warden(['check', '--config', 'warden.yaml'], event)
    expect(denied.code, denied.stderr).toBe(2)
    expect(denied.stdout + denied.stderr).toContain('no rm -rf here')
    const allowed = await warden(
      ['check', '--config', 'warden.yaml'],
      JSON.stringify({ event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } }),
    )
    expect(allowed.code, allowed.stderr).toBe(0)
  })

  it('runs `warden serve` from the project: /healthz answers and the UI is served', async () => {
    const child: ChildProcess = spawn(
      join(app, 'node_modules', '.bin', 'warden'),
      ['serve', '--port', '0', '--config', 'warden.yaml'],
      { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const exited = new Promise((resolve) => child.on('exit', resolve))
    try {
      let stdout = ''
      let stderr = ''
      child.stderr?.on('data', (d) => {
        stderr += d
      })
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000)
        child.stdout?.on('data', (d) => {
          stdout += d
          const match = /listening on (http:\/\/\S+)\/aos/.exec(stdout)
          if (match?.[1]) {
            clearTimeout(timer)
            resolve(match[1])
          }
        })
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
      })
      const health = await fetch(`${url}/healthz`)
      expect(health.status).toBe(200)
      const page = await fetch(`${url}/`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<script')
      expect(existsSync(join(app, '.warden', 'warden.db'))).toBe(true)
    } finally {
      child.kill('SIGTERM')
      await exited
    }
  })

  it('imports the package and an adapter subpath as a user does', async () => {
    const program = [
      "import { createEngine } from 'warden'",
      "import { wardenHooks } from 'warden/adapters/claude-agent-sdk'",
      "const engine = createEngine({ hooks: [{ name: 'no-bash', event: 'PreToolUse', matcher: '^Bash$', handler: { type: 'deny', reason: 'no Bash' } }] })",
      'const [matcher] = wardenHooks(engine).PreToolUse',
      "const out = await matcher.hooks[0]({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, session_id: 's', transcript_path: '', cwd: '.' }, 't1', { signal: new AbortController().signal })",
      'console.log(JSON.stringify(out))',
    ].join('\n')
    writeFileSync(join(app, 'adapter.mjs'), program)
    const { stdout } = await exec(process.execPath, ['adapter.mjs'], { cwd: app })
    const out = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string } }
    expect(out.hookSpecificOutput?.permissionDecision).toBe('deny')
    expect(stdout).toContain('no Bash')
  })
})
