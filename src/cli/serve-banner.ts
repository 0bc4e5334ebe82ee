// What `warden serve` prints once it listens: where /aos, /acs, /healthz and the UI are, a
// one-time sign-in link for the UI on a first start, and a curl to try that works as
// printed (with the token header when `server.auth: token` is on).

/** What the banner needs to know. */
export interface BannerFacts {
  /** The address the server listens on (as `listen` returned it). */
  url: string
  /** The same, as a browser or curl on this machine reaches it. */
  local: string
  hooks: number
  configPath?: string | undefined
  /** The management UI and `/ws` are served. */
  ui: boolean
  /** `server.auth: token`: `/aos` and `/acs` need a token. */
  tokenAuth: boolean
  /** A one-time sign-in code for the UI (first start only). */
  signInCode?: string | undefined
  /** How long the sign-in code works, in minutes. */
  signInMinutes?: number
}

/** A curl that asks the Guardian about a destructive shell command. */
export function demoCurl(url: string, options: { tokenAuth?: boolean } = {}): string {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: {
        executionId: 'demo-1',
        toolId: 'exec',
        inputs: [{ name: 'cmd', value: 'rm -rf /var/lib/app' }],
      },
      context: { agent: { id: 'demo-agent', name: 'demo' }, session: { id: 'demo-session' } },
    },
  })
  const auth = options.tokenAuth ? ` -H "authorization: Bearer $WARDEN_TOKEN"` : ''
  return `curl -s ${url}/aos -H 'content-type: application/json'${auth} -d '${body}'`
}

/** The lines `warden serve` prints once it listens. */
export function startupBanner(facts: BannerFacts): string {
  const { local } = facts
  const from = facts.configPath ? ` from ${facts.configPath}` : ''
  const lines = [
    `Warden AOS Guardian listening on ${facts.url}/aos (${facts.hooks} hook${facts.hooks === 1 ? '' : 's'}${from})`,
    `ACS Guardian: ${local}/acs`,
    `Health: ${local}/healthz`,
  ]
  if (facts.ui && facts.signInCode) {
    lines.push(
      `Management UI: ${local}/`,
      `  First start: open this link to sign in as admin (works once, for ${facts.signInMinutes ?? 15} minutes):`,
      `  ${local}/#signin=${facts.signInCode}`,
    )
  } else if (facts.ui) {
    lines.push(
      `Management UI: ${local}/ (sign in with a token from "warden tokens create --role admin --name you")`,
    )
  }
  if (facts.tokenAuth) {
    lines.push(
      'Try it (server.auth is token: put a token from "warden tokens create --role agent --name demo" in WARDEN_TOKEN):',
    )
  } else {
    lines.push('Try it (asks about "rm -rf /var/lib/app"; examples/warden.yaml denies it):')
  }
  lines.push(`  ${demoCurl(local, { tokenAuth: facts.tokenAuth })}`)
  return `${lines.join('\n')}\n`
}
