// `warden llm --upstream URL`: the model-API gateway. Agents change only their base URL;
// Anthropic Messages, OpenAI Chat Completions and Responses calls are checked on the way
// out (user.message, tool.post, model.pre) and on the way back (agent.response, tool.pre,
// model.post), streamed answers as they stream. Decisions are audited in the store (--db),
// Prometheus metrics are on /metrics, dispatches are traced. With `server.auth: token`
// callers need an access token; a hook's ask is held for approval as under `warden a2a`.

import { errorMessage } from '../core/index.js'
import {
  type LlmGateway,
  llmLetThroughRecorder,
  llmLimits,
  llmSettings,
  llmUnknownTypes,
  startLlmGateway,
} from '../gateway/index.js'
import { createSecretBox, DEFAULT_KEY_FILE, isSealed } from '../secrets/index.js'
import { parseArgs } from './args.js'
import { type GatewayRuntime, httpUrlOption, openGatewayRuntime, portOption } from './gateway-runtime.js'
import type { CliIo } from './io.js'

const HELP = `usage: warden llm --upstream <url> [--port N] [--host 127.0.0.1] [--config warden.yaml]

Puts Warden between an agent and its model's API. Point the agent's base URL at the
gateway (ANTHROPIC_BASE_URL=http://127.0.0.1:N, or OpenAI's baseURL http://127.0.0.1:N/v1).
Anthropic Messages (/v1/messages), OpenAI Chat Completions (/v1/chat/completions) and
Responses (/v1/responses) are checked, streamed or not: the new user message as
user.message, tool results sent back as tool.post, the request as model.pre; the answer's
text as agent.response (streamed text held only as far as needed), each tool call as
tool.pre, the answer as model.post. A denied request or answer is an API error (403); a
denied tool call is replaced by a text saying why. Limits come from the config's llm:
section. The upstream API key is the agent's, or llm.apiKey (sealed, or \${VAR}) /
WARDEN_LLM_API_KEY. With server.auth: token, callers send their Warden token in
X-Warden-Token (or as the API key). A hook's ask holds the call until "warden approvals"
(or a warden serve on the same --db) resolves it.

options:
  -c, --config FILE     warden.yaml (default: ./warden.yaml when present)
      --hooks DIR       a folder of Markdown hook files (repeatable)
      --upstream URL    the model API's base URL (e.g. https://api.anthropic.com)
      --host ADDRESS    address to listen on (default 127.0.0.1)
      --port N          port to listen on (default 0: any free port)
      --allowed-host H  a Host name clients use besides 127.0.0.1, localhost and [::1]
      --agent NAME      the agent name hooks see when the caller sends no X-Warden-Agent
      --tenant ID       the tenant hooks see when the caller sends no X-Warden-Tenant
      --db URL          audit store: postgres://... or a SQLite file (default as warden serve)
  -h, --help            this text

examples:
  warden llm --config warden.yaml --upstream https://api.anthropic.com --port 4200
  ANTHROPIC_BASE_URL=http://127.0.0.1:4200 claude
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
      'allowed-host': { type: 'string', multiple: true },
      agent: { type: 'string' },
      tenant: { type: 'string' },
      db: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}

/**
 * The upstream API key from `llm.apiKey` (sealed, or `${VAR}`) or WARDEN_LLM_API_KEY.
 * @throws Error when the key is in clear in the config or cannot be opened (never echoing it).
 */
export function upstreamApiKey(configured: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (configured === undefined) return env.WARDEN_LLM_API_KEY || undefined
  if (isSealed(configured)) {
    const box = createSecretBox({ env, keyFile: env.WARDEN_SECRET_KEY_FILE ?? DEFAULT_KEY_FILE })
    return box.open(configured)
  }
  const variable = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(configured)?.[1]
  if (variable !== undefined) {
    const value = env[variable]
    if (!value) throw new Error(`llm.apiKey names \${${variable}}, which is not set`)
    return value
  }
  throw new Error(
    `llm.apiKey must be sealed (wsec:v1:…, sealed with WARDEN_SECRET_KEY) or name an environment variable as \${VAR}; an API key in clear in the config is refused`,
  )
}

/** Runs `warden llm`; resolves with the exit code once the gateway has stopped. */
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
    if (!values.upstream) throw new Error('give the model API with --upstream <url>')
    upstream = httpUrlOption(values.upstream, '--upstream')
    port = portOption(values.port)
  } catch (error) {
    io.stderr(`warden llm: ${errorMessage(error)}\n\n${HELP}`)
    return 1
  }
  const log = (line: string) => io.stderr(`warden llm: ${line}\n`)
  let runtime: GatewayRuntime<ReturnType<typeof llmLimits>> | undefined
  let gateway: LlmGateway | undefined
  try {
    runtime = await openGatewayRuntime({
      section: 'llm',
      values,
      io,
      limitsOf: (config) => llmLimits(config?.raw.llm),
      log,
      wrapRecorder: llmLetThroughRecorder,
    })
    const logger = runtime.logger
    const unknownTypes = llmUnknownTypes(llmSettings(runtime.config?.raw.llm).allowUnknownTypes, (key) =>
      logger.warn(
        { event: 'security.gateway.unknown_type_let_through', key, setting: 'llm.allowUnknownTypes' },
        `an unknown item type was let through unchecked: ${key}`,
      ),
    )
    const apiKey = upstreamApiKey(llmSettings(runtime.config?.raw.llm).apiKey, io.env)
    const tokens = runtime.tokens
    gateway = await startLlmGateway({
      engine: runtime.engine,
      upstream,
      context: runtime.context,
      limits: runtime.limits,
      ...(apiKey !== undefined ? { apiKey } : {}),
      host: values.host ?? '127.0.0.1',
      port,
      metrics: runtime.persistence.metrics,
      inFlight: runtime.inFlight,
      ...(runtime.allowedHosts ? { allowedHosts: runtime.allowedHosts } : {}),
      unknownTypes,
      ...(tokens ? { authenticate: (token: string | undefined) => tokens.verify(token) } : {}),
      log,
    })
  } catch (error) {
    log(errorMessage(error))
    await gateway?.close()
    await runtime?.close()
    return 1
  }
  io.stdout(`Warden model-API gateway listening on ${gateway.url.href}, forwarding to ${upstream.href}\n`)
  await new Promise<void>((done) => {
    process.once('SIGINT', done)
    process.once('SIGTERM', done)
  })
  await runtime.close(gateway)
  return 0
}
