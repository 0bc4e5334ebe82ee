// http handler benchmark: one webhook hook's round trip through the engine (event to
// Claude Code JSON, SSRF-checked outbound client, answer parsed into a decision) against a
// bare undici POST of the same body to the same loopback server, in the same run.

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent, request } from 'undici'
import { createHttpHandler } from '../src/handlers/index.js'
import { type CheckedEvent, createEngine, parseHookDefinition, toClaudeInput } from '../src/index.js'
import { createOutboundClient } from '../src/net/index.js'
import { type BenchResult, compare } from './lib.js'

const event = {
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd: 'rm -rf /tmp/build', cwd: '/srv/app' } } },
  context: { session: { id: 's1' }, tenantId: 'acme' },
}

/** Runs the http handler benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const answer = JSON.stringify({ decision: 'allow', reason: 'fine' })
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const client = createOutboundClient({ allow: ['127.0.0.1'] })
  const engine = createEngine({
    hooks: [{ name: 'webhook', event: 'tool.pre', handler: { type: 'http', url } }],
    handlers: [createHttpHandler({ client })],
  })
  const check = await engine.dispatch(event)
  if (check.decision !== 'allow' || check.trace[0]?.outcome !== 'allow') {
    throw new Error(`the webhook hook did not allow: ${check.reason}`)
  }
  const bareAgent = new Agent()
  const body = JSON.stringify(
    toClaudeInput({ event: 'tool.pre', payload: event.payload, context: event.context }),
  )
  const bare = async () => {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      dispatcher: bareAgent,
    })
    JSON.parse(await res.body.text())
  }
  // The handler's executor on its own: what the http handler adds to a round trip.
  const handler = createHttpHandler({ client })
  const spec = parseHookDefinition({ name: 'webhook', event: 'tool.pre', handler: { type: 'http', url } })
  const execute = handler.prepare(spec.handler, spec)
  const checked: CheckedEvent = { event: 'tool.pre', payload: event.payload, context: event.context }
  const signal = new AbortController().signal
  const viaExecutor = () => execute({ event: checked, hook: spec, signal, log: () => undefined })
  try {
    const direct = await compare(viaExecutor, bare, 1500, 7)
    const full = await compare(() => engine.dispatch(event), bare, 1500, 7)
    return [
      {
        name: 'http hook executor round trip to a loopback webhook vs a bare undici POST of the same body',
        value: direct.candidateNs / 1000,
        baseline: direct.baselineNs / 1000,
        unit: 'us',
        goal: 'ratio <= 1.3',
        pass: direct.candidateNs / direct.baselineNs <= 1.3,
      },
      {
        name: 'the same through engine.dispatch (chain, timers, decision) vs a bare undici POST',
        value: full.candidateNs / 1000,
        baseline: full.baselineNs / 1000,
        unit: 'us',
        goal: 'ratio <= 1.3',
        pass: full.candidateNs / full.baselineNs <= 1.3,
      },
    ]
  } finally {
    await engine.close()
    await client.close()
    await bareAgent.close()
    server.closeAllConnections()
    server.close()
  }
}
