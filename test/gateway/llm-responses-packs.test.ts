// Client-run Responses calls reach tool.pre in a form the shell and paths detectors read: a
// local shell argv as a quoted command line, shell_call commands, an apply_patch path; a
// harmless call passes, the destructive and protected ones are replaced by a message.

import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { LlmChecks, responsesApi } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'

describe('Responses calls through the shell and paths detectors', () => {
  it('blocks a destructive local shell or shell call and a patch of a protected path', async () => {
    const engine = buildEngine(undefined, {
      extraHooks: [
        {
          name: 'shell',
          event: 'tool.pre',
          handler: { type: 'detector', detector: 'shell', action: 'deny' },
        },
        {
          name: 'paths',
          event: 'tool.pre',
          handler: { type: 'detector', detector: 'paths', action: 'deny' },
        },
      ],
    })
    const checks = new LlmChecks(engine, { checkEveryChars: 128, holdBackChars: 64 })
    const exec = (command: string[]) => ({ type: 'exec', command, env: {} })
    const output = [
      {
        type: 'local_shell_call',
        id: 'a',
        call_id: 'a',
        status: 'completed',
        action: exec(['bash', '-c', 'rm -rf /']),
      },
      { type: 'shell_call', id: 'b', call_id: 'b', status: 'completed', action: { commands: ['rm -rf ~'] } },
      {
        type: 'apply_patch_call',
        id: 'c',
        call_id: 'c',
        status: 'completed',
        operation: { type: 'update_file', path: '/home/ann/.ssh/authorized_keys', diff: '+ssh-ed25519 AAAA' },
      },
      {
        type: 'local_shell_call',
        id: 'd',
        call_id: 'd',
        status: 'completed',
        action: exec(['ls', '-la', 'src']),
      },
    ]
    const checked = await checks.answer(responsesApi, { output } as unknown as JsonObject, { context: {} })
    expect(checked.ok).toBe(true)
    if (!checked.ok) return
    const items = checked.body.output as JsonObject[]
    expect(items.map((item) => item.type)).toEqual(['message', 'message', 'message', 'local_shell_call'])
    expect(JSON.stringify(items[2])).toContain('Warden blocked the tool call apply_patch')
    await engine.close()
  })
})
