// Secret values at rest and in memory: AES-256-GCM sealing with a key from the environment
// or a key file.

export type { SecretBox, SecretBoxOptions, SecretErrorCode } from './box.js'
export {
  createSecretBox,
  DEFAULT_KEY_FILE,
  isSealed,
  loadOrCreateKeyFile,
  parseKey,
  SEALED_PREFIX,
  SECRET_KEY_ENV,
  SecretError,
} from './box.js'
export type { SealedOpener } from './refs.js'
export { openSecretRef, SECRET_REF, SECRET_REF_FORMS } from './refs.js'
