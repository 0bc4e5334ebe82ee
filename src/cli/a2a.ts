// `warden a2a --upstream URL`: the A2A gateway. Serves the upstream agent's card (its
// interfaces moved to the gateway) and forwards JSON-RPC and HTTP+JSON calls, running the
// hooks on every request, answer and streamed event. Decisions are audited in the store
// (--db), Prometheus metrics are on /metrics and dispatches are traced. With `server.auth:
// token` callers need an access token (`warden tokens create`) whose tenant pins theirs.
// A hook's `ask` is held as a pending approval in the store (see a2a-approvals.ts).

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { openPersistence, type Persistence, redactingRecorder } from '../audit/index.js'
import { type EventContext, errorMessage } from '../core/index.js'
import { type A2aGateway, a2aLimits, startA2aGateway } from '../gateway/index.js'
import { inFlightLimiterFor, registerInFlightMetrics, settleAfterBursts } from '../inflight/index.js'
import { createLogger, traceEngine } from '../observability/index.js'
import { TokenAuthority, tokenFromRequest } from '../server/index.js'
import { allowedHostsOf, buildEngine, loadConfig, type WardenConfig } from '../sources/index.js'
import { type GatewayApprovals, gatewayApprovals } from './a2a-approvals.js'
import { parseArgs } from './args.js'
import { loadGatewayHookDirs } from './hook-sources.js'
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

function httpUrl(text: string, flag: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new Error(`${flag} must be an http or https URL (got "${text}")`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${flag} must be an http or https URL (got "${text}")`)
  return url
}

/** Runs `warden a2a`; resolves with the exit code once the gateway has stopped. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let values: ReturnType<typeof parse>['values']
  let upstream: URL
  let port = 0
  try {
    values = parse(args).values
    if (values.help) {
      io.stdout(HELP)
      return 0
    }
    if (!values.upstream) throw new Error('give the upstream agent with --upstream <url>')
    upstream = httpUrl(values.upstream, '--upstream')
    if (values.port !== undefined) {
      port = Number(values.port)
      if (!Number.isInteger(port) || port < 0 || port > 65_535)
        throw new Error(`--port must be a whole number from 0 to 65535 (got "${values.port}")`)
    }
  } catch (error) {
    io.stderr(`warden a2a: ${errorMessage(error)}\n\n${HELP}`)
    return 1
  }
  const log = (line: string) => io.stderr(`warden a2a: ${line}\n`)
  let config: WardenConfig | undefined
  let persistence: Persistence | undefined
  let gateway: A2aGateway | undefined
  let engine: ReturnType<typeof buildEngine> | undefined
  let authority: TokenAuthority | undefined
  let approvals: GatewayApprovals | undefined
  let gatewayAuth: ((authorization: string | undefined) => ReturnType<TokenAuthority['verify']>) | undefined
  try {
    const configPath =
      values.config ?? (existsSync(resolve(io.cwd, 'warden.yaml')) ? 'warden.yaml' : undefined)
    if (configPath) config = await loadConfig(resolve(io.cwd, configPath))
    const allowedHosts = allowedHostsOf(config, values['allowed-host'])
    const limits = a2aLimits(config?.raw.a2a)
    const extraHooks = await loadGatewayHookDirs(values.hooks, io, config, log)
    const logger = createLogger({ destination: { write: (line: string) => void io.stderr(line) } })
    persistence = await openPersistence({
      logger,
      db: values.db,
      config: config?.raw,
      breaker: config?.limits.breaker,
      env: io.env,
      cwd: io.cwd,
    })
    approvals = await gatewayApprovals(config, persistence, log)
    engine = traceEngine(
      buildEngine(config, {
        recorder: redactingRecorder(persistence.redactor, persistence.recorder),
        approver: approvals.approver,
        breaker: persistence.breaker,
        env: io.env,
        extraHooks,
      }),
    )
    persistence.metrics.watchHooks(engine)
    const inFlight = inFlightLimiterFor(limits, 'a2a', {
      bytes: limits.maxBodyBytes,
      setting: 'a2a.maxBodyBytes',
    })
    const audit = persistence.writer
    inFlight.holdAlso('audit records not yet written', () => audit.heldBytes())
    registerInFlightMetrics(persistence.metrics.registry, inFlight)
    settleAfterBursts(inFlight)
    const context: EventContext = {}
    if (values.agent) context.agent = { id: values.agent, name: values.agent }
    if (values.tenant) context.tenantId = values.tenant
    const network = (config?.raw.network ?? {}) as { allow?: string[] }
    if ((config?.raw.server as { auth?: string } | undefined)?.auth === 'token') {
      const tokens = new TokenAuthority(persistence.store)
      authority = tokens
      gatewayAuth = (authorization: string | undefined) =>
        tokens.verify(tokenFromRequest(authorization, undefined))
    }
    gateway = await startA2aGateway({
      engine,
      upstream,
      context,
      limits,
      ...(network.allow ? { networkAllow: network.allow } : {}),
      host: values.host ?? '127.0.0.1',
      port,
      ...(values['public-url'] ? { publicUrl: httpUrl(values['public-url'], '--public-url') } : {}),
      metrics: persistence.metrics,
      inFlight,
      ...(allowedHosts ? { allowedHosts } : {}),
      ...(gatewayAuth ? { authenticate: gatewayAuth } : {}),
      log,
    })
  } catch (error) {
    log(errorMessage(error))
    await gateway?.close()
    authority?.close()
    await approvals?.close()
    await engine?.close().catch(() => undefined)
    await persistence?.close().catch(() => undefined)
    return 1
  }
  io.stdout(
    `Warden A2A gateway listening on ${gateway.url.href}, forwarding to ${upstream.href}\nAgent card: ${new URL('/.well-known/agent-card.json', gateway.url).href}\n`,
  )
  await new Promise<void>((done) => {
    process.once('SIGINT', done)
    process.once('SIGTERM', done)
  })
  await approvals?.close()
  await gateway.close()
  authority?.close()
  await engine.close()
  await persistence.close()
  return 0
}
