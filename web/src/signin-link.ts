// The one-time sign-in link `warden serve` prints on its first start (`/#signin=<code>`):
// the code is taken out of the address bar before anything renders (so it stays in no
// bookmark or shared URL) and traded once on `POST /signin` for an access token.

/** The code of a sign-in link in the address bar, removed from it; undefined when there is none. */
export function takeSignInCode(): string | undefined {
  const match = /^#signin=([A-Za-z0-9_-]+)$/.exec(location.hash)
  if (!match) return undefined
  history.replaceState(null, '', location.pathname + location.search)
  return match[1]
}

/** Trades a sign-in code for an access token; rejects with the server's reason. */
export async function redeemSignInCode(code: string): Promise<string> {
  let response: Response
  try {
    response = await fetch(new URL('signin', location.href.replace(/#.*$/, '')), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    })
  } catch {
    throw new Error('The sign-in link could not be used: the server cannot be reached.')
  }
  const body = (await response.json().catch(() => ({}))) as { token?: unknown; error?: unknown }
  if (response.ok && typeof body.token === 'string') return body.token
  const why = typeof body.error === 'string' ? body.error : `the server answered HTTP ${response.status}`
  throw new Error(`The sign-in link could not be used: ${why}.`)
}
