// Builds dist/: the compiled sources (tsc) and the management UI (Vite), from a clean
// dist/ so that nothing left over from an older build ships, then writes a stamp of the
// inputs. `--if-changed` builds only when an input (src/, web/, the tsconfigs, package.json)
// differs from the stamp, so `npm start` starts at once when nothing changed.

import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'dist')
const stampFile = join(dist, '.build-stamp')
const INPUTS = ['src', 'web', 'tsconfig.json', 'tsconfig.build.json', 'package.json']

/** Every input file under `path`, as "path size mtime" lines. */
function describe(path) {
  if (!existsSync(path)) return []
  const info = statSync(path)
  if (info.isDirectory()) {
    return readdirSync(path)
      .sort()
      .flatMap((name) => describe(join(path, name)))
  }
  return [`${relative(root, path)} ${info.size} ${Math.trunc(info.mtimeMs)}`]
}

/** A hash of the inputs' names, sizes and modification times. */
function inputStamp() {
  const lines = INPUTS.flatMap((input) => describe(join(root, input)))
  return createHash('sha256').update(lines.join('\n')).digest('hex')
}

function currentStamp() {
  try {
    return readFileSync(stampFile, 'utf8').trim()
  } catch {
    return undefined
  }
}

/** Runs a package's command (its `bin`) with this Node; exits with its code when it fails. */
function runTool(name, args) {
  const require = createRequire(join(root, 'package.json'))
  const manifestPath = require.resolve(`${name}/package.json`)
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8'))
  const script = typeof bin === 'string' ? bin : bin[name === 'typescript' ? 'tsc' : name]
  const result = spawnSync(process.execPath, [join(manifestPath, '..', script), ...args], {
    cwd: root,
    stdio: 'inherit',
  })
  if (result.status !== 0) {
    process.stderr.write(`build: ${name} ${args.join(' ')} failed\n`)
    process.exit(result.status ?? 1)
  }
}

const stamp = inputStamp()
if (process.argv.includes('--if-changed') && currentStamp() === stamp && existsSync(join(dist, 'cli'))) {
  process.exit(0)
}
if (process.argv.includes('--if-changed'))
  process.stderr.write('Sources changed since the last build: building…\n')
rmSync(dist, { recursive: true, force: true })
runTool('typescript', ['-p', 'tsconfig.build.json'])
runTool('vite', ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'])
writeFileSync(stampFile, `${stamp}\n`)
