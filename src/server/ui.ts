// The management UI at `/`: the files built into dist/web (precompressed, sent gzipped to
// clients that take it), served from the package itself with no CDN. The UI talks only
// to `/ws`. When the UI was not built, `/` says how to build it.

import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
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
    setHeaders(response, path) {
      response.setHeader('x-content-type-options', 'nosniff')
      if (path.includes(`${'/'}assets${'/'}`))
        response.setHeader('cache-control', 'public, max-age=31536000, immutable')
      else {
        response.setHeader('cache-control', 'no-cache')
        response.setHeader(
          'content-security-policy',
          "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
        )
      }
    },
  })
}
