// A decision made by `warden serve --goclaw … --hooks …` replays against the same sources:
// `warden serve` records where its hooks came from with every decision, `warden replay`
// loads those sources again (or the ones its own flags name), and the UI's "Replay against
// today's hooks" (decisions.replay over /ws) runs the serving engine's hooks, files included.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import {
  aos,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  toolCall,
  WsClient,
} from '../server/management-helper.js'

const dir = tempDir('warden-replay-sources-')
const db = join(dir, 'replay.db')
const goclaw = join(dir, 'goclaw.json')
const hooks = join(dir, 'hooks')
const env = { ...process.env, WARDEN_SECRET_KEY: 'a'.repeat(64) }
let served: Served
let ws: WsClient
const decisions: Record<string, string> = {}

beforeAll(async () => {
  writeFileSync(
    goclaw,
    JSON.stringify([
      {
        name: 'gc-exec',
        event: 'pre_tool_use',
        handler_type: 'command',
        matcher: '^exec$',
        config: { command: 'echo goclaw says no >&2; exit 2' },
      },
    ]),
  )
  mkdirSync(hooks)
  writeFileSync(
    join(hooks, 'no-rm.md'),
    '---\nevent: tool.pre\nscript: |\n  def handle(event, payload):\n    return block("no rm") if payload["name"] == "rm" else allow()\n---\n',
  )
  const store = await storeAt(db)
  const admin = await token(store, 'admin')
  await store.close()
  served = await serve({ dir, name: 'replay', yaml: '', db, args: ['--goclaw', goclaw, '--hooks', hooks] })
  ws = await WsClient.connect(served.url, admin.token)
  for (const tool of ['exec', 'rm']) {
    const { body } = await aos(served.url, toolCall(tool, { cmd: 'x' }))
    expect(body.result.decision).toBe('deny')
    decisions[tool] = body.result.data.decisionId
  }
}, 90_000)

afterAll(async () => {
  ws?.close()
  await served?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('replay against the sources a decision was made with', () => {
  it("the UI's replay (decisions.replay) keeps the --goclaw and --hooks hooks", async () => {
    for (const id of Object.values(decisions)) {
      let res = await ws.call('decisions.replay', { id })
      for (let i = 0; i < 100 && res.error?.code === 'not-found'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        res = await ws.call('decisions.replay', { id })
      }
      const result = res.payload
      expect(result.differs, result.text).toBe(false)
      expect(result.new.decision).toBe('deny')
    }
  })

  it('warden replay loads the recorded sources again', async () => {
    const run = await runCli(['replay', decisions.rm as string, '--db', db], { cwd: dir, env })
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stderr).toContain(`--goclaw ${goclaw}`)
    expect(run.stderr).toContain(`--hooks ${hooks}`)
  })

  it('flags name other sources: without --goclaw the GoClaw hook is absent', async () => {
    const empty = join(dir, 'empty.yaml')
    writeFileSync(empty, '')
    const without = await runCli(['replay', decisions.exec as string, '--db', db, '--config', empty], {
      cwd: dir,
      env,
    })
    expect(without.code, without.stdout + without.stderr).toBe(3)
    const withFlag = await runCli(
      ['replay', decisions.exec as string, '--db', db, '--config', empty, '--goclaw', goclaw],
      { cwd: dir, env },
    )
    expect(withFlag.code, withFlag.stdout + withFlag.stderr).toBe(0)
  })
})
