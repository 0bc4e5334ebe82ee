// Public material that looks like a secret to an entropy check: Subresource Integrity and
// lockfile hashes (`sha512-…`), SSH public keys (`ssh-ed25519 AAAA…`), PEM blocks of
// certificates and public keys, and opaque pagination cursors (`next_cursor: dXNl…`,
// base64 of JSON or of plain text). None of these is a credential, so the `high-entropy`
// check does not flag them; the provider patterns still run inside them.

/** SRI and lockfile integrity hashes, and SSH key fingerprints (`SHA256:…`). */
const SRI = /\b(?:sha(?:256|384|512)-[A-Za-z0-9+/]{40,100}={0,2}|SHA256:[A-Za-z0-9+/]{43}=?)/g
/** An SSH public key: its algorithm name, then the base64 blob (which starts `AAAA`). */
const SSH_PUBLIC =
  /\b(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp(?:256|384|521)|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com|ssh-(?:rsa|ed25519)-cert-v01@openssh\.com)\s{1,4}AAAA[A-Za-z0-9+/]{20,8000}={0,3}/g
/** The BEGIN line of a PEM block of public material. */
const PEM_PUBLIC_BEGIN =
  /-----BEGIN (CERTIFICATE|TRUSTED CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|PGP PUBLIC KEY BLOCK|PGP SIGNATURE|SSH2 PUBLIC KEY|X509 CRL|CERTIFICATE REQUEST|NEW CERTIFICATE REQUEST|DH PARAMETERS|EC PARAMETERS)-----/g
/** A PEM body: base64 lines, optionally after `Name: value` header lines. */
const PEM_BODY = /^(?:[ \t]*[A-Za-z-]{1,40}:[^\n]{0,200}\n)*[A-Za-z0-9+/=\s]*$/

/** The name of a pagination or continuation field, just before a value. */
const CURSOR_KEY =
  /(?:cursor|page_?token|pagetoken|next_?token|nexttoken|continuation_?token|continuationtoken|start_?cursor|end_?cursor|startcursor|endcursor|next_?marker|nextmarker|marker|scroll_?id|scrollid|next_?page|nextpage|after|before|starting_after|ending_before|offset_?token|resume_?token|sync_?token|synctoken|next_?link)["']?\s{0,3}[:=]\s{0,3}["']?$|[?&](?:cursor|page_?token|pagetoken|after|before|next|marker|continuation)=$/i

/** Spans `[start, end)` of public material in `text`. */
export function publicSpans(text: string): [number, number][] {
  const spans: [number, number][] = []
  const collect = (re: RegExp, ...hints: string[]) => {
    if (!hints.some((h) => text.includes(h))) return
    re.lastIndex = 0
    for (let m = re.exec(text); m !== null; m = re.exec(text)) spans.push([m.index, m.index + m[0].length])
  }
  collect(SRI, 'sha', 'SHA256:')
  collect(SSH_PUBLIC, 'AAAA')
  if (text.includes('-----BEGIN ')) pemBlocks(text, spans)
  return spans
}

/** Adds the spans of public PEM blocks; each END is searched once per block type (linear). */
function pemBlocks(text: string, spans: [number, number][]): void {
  const endOf = new Map<string, number>()
  PEM_PUBLIC_BEGIN.lastIndex = 0
  for (let m = PEM_PUBLIC_BEGIN.exec(text); m !== null; m = PEM_PUBLIC_BEGIN.exec(text)) {
    const type = m[1] as string
    const bodyStart = m.index + m[0].length
    let end = endOf.get(type)
    if (end === undefined || (end >= 0 && end < bodyStart)) {
      end = text.indexOf(`-----END ${type}-----`, bodyStart)
      endOf.set(type, end)
    }
    if (end < 0) continue
    const body = text.slice(bodyStart, end)
    if (body.length <= 60_000 && PEM_BODY.test(body)) spans.push([m.index, end + type.length + 14])
  }
}

/** True when the token at `start` is the value of a pagination field. */
export function isCursorValue(text: string, start: number): boolean {
  return CURSOR_KEY.test(text.slice(Math.max(0, start - 40), start))
}

/**
 * True when `token` is base64 (or base64url) of JSON or of printable text: an encoded
 * structure such as a cursor or an id, not random key material.
 */
export function encodesText(token: string): boolean {
  const decoded = decodeText(token)
  if (decoded.length < 8) return false
  let printable = 0
  for (let i = 0; i < decoded.length; i++) {
    const c = decoded.charCodeAt(i)
    if ((c >= 32 && c < 127) || c === 9 || c === 10) printable++
  }
  return printable / decoded.length >= 0.97
}

/** The bytes `token` encodes in base64 or base64url, as Latin-1 text ('' when it is not base64). */
export function decodeText(token: string): string {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(token) || token.length % 4 === 1) return ''
  try {
    const plain = token.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
    return atob(plain + '='.repeat((4 - (plain.length % 4)) % 4))
  } catch {
    return ''
  }
}
