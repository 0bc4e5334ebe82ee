// Shared test helpers: an AES-256-GCM secret box with a random key (the shape of the
// secrets module's box), so sealed values in the database can be checked for real.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { SecretBox } from '../../src/store/index.js'

/** Creates an AES-256-GCM box with a fresh random key. */
export function createTestSecretBox(key = randomBytes(32)): SecretBox {
  return {
    seal(plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`
    },
    open(sealed) {
      const raw = Buffer.from(sealed.slice(3), 'base64')
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
      decipher.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    },
  }
}

/** One box shared by a test file. */
export const testBox = createTestSecretBox()
