// `warden a2a --upstream URL`: the A2A gateway. Serves the upstream agent's card (its
// interfaces moved to the gateway) and forwards JSON-RPC and HTTP+JSON calls, running the
// hooks on every request, answer and streamed event. Decisions are audited in the store
// (--db), Prometheus metrics are on /metrics and dispatches are traced. With `server.auth:
// token` callers need an access token (`warden tokens create`) whose tenant pins theirs.
// A hook's `ask` is held as a pending approval in the store (see gateway-approvals.ts).

import { errorMessage } from '../core/index.js'
import { type A2aGateway, a2aLetThroughRecorder, a2aLimits, startA2aGateway } from '../gateway/index.js'
import { tokenFromRequest } from '../server/index.js'
import { parseArgs } from './args.js'
import { type GatewayRuntime, httpUrlOption, openGatewayRuntime, portOption } from './gateway-runtime.js'
import type { CliIo } from './io.js'

const HELP = `usage: warden a2a --upstream <url> [--port N] [--host 127.0.0.1] [--config warden.yaml]

Puts Warden between A2A agents: serves the upstream agent's card at
/.well-known/agent-card.json with its interfaces moved to the gateway, and forwards
JSON-RPC and HTTP+JSON calls. Requests are checked as a2a.send, a2a.stream, a2a.get,
a2a.cancel, a2a.list, a2a.resubscribe, a2a.pushConfig.*; every answer and streamed
event as a2a.response; the card as a2a.card. Push-notification URLs must pass the SSRF
policy (network.allow). Limits come from the config's a2a: section. With server.auth:
token in the config, callers send "Authorization: Bearer <token>" (warden tokens create).
A hook's ask holds the call until it is resolved with "warden approvals" (or from a
warden serve on the same --db), within limits.approvalTimeoutMs.

options:
  -c, --config FILE     warden.yaml (default: ./warden.yaml when present)
      --hooks DIR       a folder of Markdown hook files (repeatable)
      --upstream URL    the upstream agent's base URL (its card is below it)
      --host ADDRESS    address to listen on (default 127.0.0.1)
      --port N          port to listen on (default 0: any free port)
      --public-url URL  the URL clients reach the gateway at, put in the card
      --allowed-host H  a Host name clients use besides 127.0.0.1, localhost and [::1]
                        (repeatable; adds to server.allowedHosts)
      --agent NAME      the agent name hooks see when the card has none
      --tenant ID       the tenant hooks see when the caller sends no X-Warden-Tenant
      --db URL          audit store: postgres://... or a SQLite file (default as warden serve)
  -h, --help            this text

examples:
  warden a2a --config warden.yaml --upstream http://127.0.0.1:4000/ --port 4100
`

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: false,
    options: {
      config: { type: 'string', short: 'c' },
      hooks: { type: 'string', multiple: true },
      upstream: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'public-url': { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      agent: { type: 'string' },
      tenant: { type: 'string' },
      db: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}

/** Runs `warden a2a`; resolves with the exit code once the gateway has stopped. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let values: ReturnType<typeof parse>['values']
  let upstream: URL
  let port: number
  try {
    values = parse(args).values
    if (values.help) {
      io.stdout(HELP)
      return 0
    }
    if (!values.upstream) throw new Error('give the upstream agent with --upstream <url>')
    upstream = httpUrlOption(values.upstream, '--upstream')
    port = portOption(values.port)
  } catch (error) {
    io.stderr(`warden a2a: ${errorMessage(error)}\n\n${HELP}`)
    return 1
  }
  const log = (line: string) => io.stderr(`warden a2a: ${line}\n`)
  let runtime: GatewayRuntime<ReturnType<typeof a2aLimits>> | undefined
  let gateway: A2aGateway | undefined
  try {
    runtime = await openGatewayRuntime({
      section: 'a2a',
      values,
      io,
      limitsOf: (config) => a2aLimits(config?.raw.a2a),
      log,
      wrapRecorder: a2aLetThroughRecorder,
    })
    const network = (runtime.config?.raw.network ?? {}) as { allow?: string[] }
    const tokens = runtime.tokens
    gateway = await startA2aGateway({
      engine: runtime.engine,
      upstream,
      context: runtime.context,
      limits: runtime.limits,
      ...(network.allow ? { networkAllow: network.allow } : {}),
      host: values.host ?? '127.0.0.1',
      port,
      ...(values['public-url'] ? { publicUrl: httpUrlOption(values['public-url'], '--public-url') } : {}),
      metrics: runtime.persistence.metrics,
      inFlight: runtime.inFlight,
      ...(runtime.allowedHosts ? { allowedHosts: runtime.allowedHosts } : {}),
      ...(tokens
        ? {
            authenticate: (authorization: string | undefined) =>
              tokens.verify(tokenFromRequest(authorization, undefined)),
          }
        : {}),
      log,
    })
  } catch (error) {
    log(errorMessage(error))
    await gateway?.close()
    await runtime?.close()
    return 1
  }
  io.stdout(
    `Warden A2A gateway listening on ${gateway.url.href}, forwarding to ${upstream.href}\nAgent card: ${new URL('/.well-known/agent-card.json', gateway.url).href}\n`,
  )
  await new Promise<void>((done) => {
    process.once('SIGINT', done)
    process.once('SIGTERM', done)
  })
  await runtime.close(gateway)
  return 0
}
