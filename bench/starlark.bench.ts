// Benchmark: one call of a typical 9-substring Starlark guard's `handle`, compiled once,
// against the same logic as a plain JS function called the same way in the same run.

import { compile } from '../src/starlark/index.js'
import { type BenchResult, compare, nsPerOpSync } from './lib.js'

const GUARD = `
DENY = ["rm -rf", "mkfs", "dd if=", ":(){", "shutdown", "reboot", "chmod 777", "curl | sh", "> /dev/sda"]

def handle(event, payload):
    for s in DENY:
        if s in payload["cmd"]:
            return "deny"
    return "allow"
`

const DENY = [
  'rm -rf',
  'mkfs',
  'dd if=',
  ':(){',
  'shutdown',
  'reboot',
  'chmod 777',
  'curl | sh',
  '> /dev/sda',
]

function handleJs(_event: string, payload: { cmd: string }): string {
  for (const s of DENY) {
    if (payload.cmd.includes(s)) return 'deny'
  }
  return 'allow'
}

/** Runs the Starlark guard benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const module = compile(GUARD, 'guard.star').run()
  const payload = { cmd: 'ls -la /home/user/project && git status' }
  const args = ['tool.pre', payload]
  if (module.call('handle', args) !== 'allow' || handleJs('tool.pre', payload) !== 'allow') {
    throw new Error('guard returned an unexpected decision')
  }
  const call = () => module.call('handle', args)
  const callJs = () => handleJs(args[0] as string, args[1] as { cmd: string })
  const { candidateNs, baselineNs } = await compare(call, callJs, 200_000)
  const syncStarlarkNs = nsPerOpSync(call, 500_000)
  const syncJsNs = nsPerOpSync(callJs, 500_000)
  const us = candidateNs / 1000
  return [
    {
      name: 'starlark guard handle(), 9 substrings, allow path',
      value: us,
      baseline: baselineNs / 1000,
      unit: 'us',
      goal: 'us <= 5',
      pass: us <= 5,
      extra: {
        ratio: candidateNs / baselineNs,
        'sync us': syncStarlarkNs / 1000,
        'sync js us': syncJsNs / 1000,
      },
    },
  ]
}
