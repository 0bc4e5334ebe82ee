// The management UI at `/`: the files built into dist/web (precompressed, sent gzipped to
// clients that take it), served from the package itself with no CDN. The UI talks only
// to `/ws`. The page is never cached without a check, hashed assets are cached for good,
// and the page's policy keeps it to its own origin. When the UI was not built, `/` says
// how to build it.

import { existsSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

/** Where the built UI is: dist/web beside the compiled server, or from the sources. */
export function uiRoot(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url))
  const candidates = [join(here, '..', 'web'), join(here, '..', '..', 'dist', 'web')]
  return candidates.find((dir) => existsSync(join(dir, 'index.html')))
}

/** Serves the UI at `/` (a plugin for {@link createServer}). */
export async function uiPlugin(app: FastifyInstance): Promise<void> {
  const root = uiRoot()
  if (!root) {
    app.get('/', async (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .send('The management UI is not built. Run "npm run build" in the Warden package, then restart.\n'),
    )
    return
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    preCompressed: true,
    index: ['index.html'],
    wildcard: false,
    // The headers below are the only cache headers: the plugin's own would overwrite them.
    cacheControl: false,
    setHeaders: uiHeaders,
  })
}

/**
 * The policy of the page: everything from its own origin only (`'self'` covers its own
 * `ws:`/`wss:` socket, and no other host's), no `<base>`, no form posts, never framed.
 */
export const UI_CONTENT_SECURITY_POLICY =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/**
 * Headers of every UI file: hashed assets (under assets/) are cached for good, the page
 * itself is checked again on every load and carries the security policy; every file may
 * be sent gzipped, so caches keep one copy per Accept-Encoding.
 */
function uiHeaders(response: { setHeader(name: string, value: string): unknown }, path: string): void {
  response.setHeader('x-content-type-options', 'nosniff')
  response.setHeader('vary', 'Accept-Encoding')
  if (path.includes(`${sep}assets${sep}`)) {
    response.setHeader('cache-control', 'public, max-age=31536000, immutable')
    return
  }
  response.setHeader('cache-control', 'no-cache')
  response.setHeader('content-security-policy', UI_CONTENT_SECURITY_POLICY)
  response.setHeader('referrer-policy', 'no-referrer')
  response.setHeader('x-frame-options', 'DENY')
}
