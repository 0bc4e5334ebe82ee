// Who may reach `warden mcp --upstream`'s HTTP listener: the Host names it answers to
// (`server.allowedHosts`, `--allowed-host`) and, with `server.auth: token`, the access
// tokens of the store (`--db`, as `warden serve`), checked for every request.

import type { HttpGatewayOptions } from '../gateway/index.js'
import { TokenAuthority, tokenFromRequest } from '../server/index.js'
import { allowedHostsOf, type WardenConfig } from '../sources/index.js'
import { openStore, resolveDatabaseLocation, type Store } from '../store/index.js'
import type { CliIo } from './io.js'

/** The gateway options of the HTTP listener's access, and how to release them. */
export interface HttpAccess {
  options: Pick<HttpGatewayOptions, 'allowedHosts' | 'authenticate'>
  close(): Promise<void>
}

/**
 * The access settings of the MCP HTTP gateway from the config and flags.
 * @throws Error naming a bad `--allowed-host` or a store that cannot be opened
 */
export async function httpAccess(
  config: WardenConfig | undefined,
  flags: { 'allowed-host'?: string[] | undefined; db?: string | undefined },
  io: Pick<CliIo, 'env' | 'cwd'>,
): Promise<HttpAccess> {
  const allowedHosts = allowedHostsOf(config, flags['allowed-host'])
  const options: HttpAccess['options'] = allowedHosts ? { allowedHosts } : {}
  if ((config?.raw.server as { auth?: string } | undefined)?.auth !== 'token') {
    return { options, close: async () => undefined }
  }
  const location = resolveDatabaseLocation({
    flag: flags.db,
    env: io.env,
    config: typeof config?.raw.db === 'string' ? config.raw.db : undefined,
  })
  const store: Store = await openStore(location, { cwd: io.cwd })
  const authority = new TokenAuthority(store)
  options.authenticate = (authorization) => authority.verify(tokenFromRequest(authorization, undefined))
  return {
    options,
    async close() {
      authority.close()
      await store.close()
    },
  }
}
