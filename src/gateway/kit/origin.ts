// Origin pinning for the data-plane gateways: a request is forwarded only to the origin the
// operator configured, so the operator's API key and the caller's credentials never reach
// another host. The request target must be a plain origin-form path (one leading `/`, no
// backslash, no encoded slash or backslash that a later parser could read as a new
// authority, no dot segments); the forward URL is the configured base with that path
// appended and is checked to have the base's origin. Top-level navigations are refused too:
// a web page could otherwise send the user's browser to the gateway, which answers with the
// operator's credentials attached upstream.

import type { IncomingHttpHeaders } from 'node:http'
import type { DoorRefusal } from '../../net/index.js'

/** Why a target cannot be forwarded: it is not a plain path below the configured origin. */
export class TargetError extends Error {
  override readonly name = 'TargetError'
}

const ENCODED_SEPARATOR = /%(2f|5c)/i
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|$)/i

/**
 * Why a request target would leave the configured origin, or undefined for a plain path.
 * @param target the request target as received (path and query)
 */
export function targetProblem(target: string): string | undefined {
  const query = target.indexOf('?')
  const path = query >= 0 ? target.slice(0, query) : target
  if (!path.startsWith('/')) return 'does not start with "/" (only origin-form paths are forwarded)'
  if (path.startsWith('//')) return 'starts with "//", which names another host'
  if (path.includes('\\')) return 'holds a backslash, which some parsers read as "/"'
  if (ENCODED_SEPARATOR.test(path)) return 'holds an encoded slash or backslash (%2F, %5C)'
  if (DOT_SEGMENT.test(path)) return 'holds a "." or ".." segment'
  return undefined
}

/** The refusal (400 naming the target) for a target that would leave the configured origin. */
export function targetRefusal(target: string): DoorRefusal | undefined {
  const problem = targetProblem(target)
  if (problem === undefined) return undefined
  return {
    status: 400,
    field: 'target',
    message: `the request target "${clip(target)}" is refused: it ${problem}; the gateway forwards only to its configured upstream`,
  }
}

/**
 * The upstream URL of a request: the configured base with the target's path appended (the
 * base's own path kept as a prefix) and the target's query.
 * @throws TargetError when the target is not a plain path, or the result would leave the base's origin.
 */
export function pinnedUrl(base: URL, target: string): URL {
  const problem = targetProblem(target)
  if (problem !== undefined) throw new TargetError(`the request target "${clip(target)}" ${problem}`)
  const query = target.indexOf('?')
  const url = new URL(base.href)
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${query >= 0 ? target.slice(0, query) : target}`
  url.search = query >= 0 ? target.slice(query) : ''
  url.hash = ''
  if (url.origin !== base.origin) {
    throw new TargetError(`the request target "${clip(target)}" would leave ${base.origin}`)
  }
  return url
}

/**
 * The refusal for a top-level navigation (a link followed, a page opened in a browser):
 * `Sec-Fetch-Mode: navigate`, `Sec-Fetch-Dest: document`, or an `Accept` asking for HTML
 * and not JSON. Agents and SDKs never send these; a data-plane gateway has no page to show.
 */
export function navigationRefusal(headers: IncomingHttpHeaders): DoorRefusal | undefined {
  if (headers['sec-fetch-mode'] === 'navigate')
    return navigation('sec-fetch-mode', 'Sec-Fetch-Mode: navigate')
  const dest = headers['sec-fetch-dest']
  if (dest === 'document' || dest === 'iframe' || dest === 'frame') {
    return navigation('sec-fetch-dest', `Sec-Fetch-Dest: ${dest}`)
  }
  const accept = headers.accept
  if (typeof accept === 'string' && accept.includes('text/html') && !accept.includes('json')) {
    return navigation('accept', 'Accept asks for an HTML page')
  }
  return undefined
}

function navigation(field: string, why: string): DoorRefusal {
  return {
    status: 403,
    field,
    message: `browser navigations are refused (${why}): this gateway serves agents and API clients, not pages`,
  }
}

function clip(value: string): string {
  const shown = value.length > 100 ? `${value.slice(0, 100)}…` : value
  return shown.replace(/[\u0000-\u001f\u007f]/g, '?')
}
