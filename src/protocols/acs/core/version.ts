// The ACS version Warden speaks and the forward-compatibility rule (§3): any X.Y.Z of the same
// major version is understood. Kept apart so the envelope check and the handshake share it
// without importing each other.

/** The ACS version Warden implements. */
export const ACS_VERSION = '0.1.0'

const VERSION = /^(\d+)\.(\d+)\.(\d+)$/
const MAJOR = ACS_VERSION.split('.')[0]

/** Whether `version` is X.Y.Z with Warden's major version (§3 forward compatibility). */
export function sameMajor(version: unknown): boolean {
  if (version === ACS_VERSION) return true
  if (typeof version !== 'string') return false
  const match = VERSION.exec(version)
  return match !== null && match[1] === MAJOR
}
