// The secret box: round trips, tamper and wrong-key detection, key formats, and the key
// file created with mode 0600 on first start and reused afterwards.

import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSecretBox, isSealed, SecretError } from '../../src/secrets/index.js'

const dir = () => mkdtempSync(join(tmpdir(), 'warden-secrets-'))

describe('secret box', () => {
  it('seals with a fresh IV each time and opens what it sealed', () => {
    const box = createSecretBox({ key: randomBytes(32) })
    const a = box.seal('Bearer s3cret-token')
    const b = box.seal('Bearer s3cret-token')
    expect(isSealed(a)).toBe(true)
    expect(a).not.toBe(b)
    expect(a).not.toContain('s3cret')
    expect(box.open(a)).toBe('Bearer s3cret-token')
    expect(box.open(box.seal(''))).toBe('')
    expect(box.open(box.seal('ünïcødé ✓'))).toBe('ünïcødé ✓')
  })

  it('detects tampering and a different key without echoing the value', () => {
    const box = createSecretBox({ key: randomBytes(32) })
    const sealed = box.seal('top-secret')
    const last = sealed.at(-2) === 'A' ? 'B' : 'A'
    const tampered = `${sealed.slice(0, -2)}${last}${sealed.at(-1)}`
    expect(() => box.open(tampered)).toThrow(SecretError)
    const other = createSecretBox({ key: randomBytes(32) })
    let message = ''
    try {
      other.open(sealed)
    } catch (error) {
      message = (error as Error).message
      expect((error as SecretError).code).toBe('wrong-key')
    }
    expect(message).toMatch(/another key/)
    expect(message).not.toContain(sealed)
    expect(() => box.open('plain text')).toThrow(/not a sealed secret/)
    expect(() => box.open('wsec:v1:abc')).toThrow(/truncated/)
  })

  it('reads WARDEN_SECRET_KEY as hex or base64, and refuses anything else', () => {
    const key = randomBytes(32)
    const hex = createSecretBox({
      env: { WARDEN_SECRET_KEY: key.toString('hex') },
      keyFile: '/nonexistent/x',
    })
    const b64 = createSecretBox({ env: { WARDEN_SECRET_KEY: key.toString('base64') } })
    expect(b64.open(hex.seal('same key'))).toBe('same key')
    expect(hex.keySource).toBe('env')
    for (const bad of ['short', key.toString('hex').slice(2), randomBytes(16).toString('base64')]) {
      expect(() => createSecretBox({ env: { WARDEN_SECRET_KEY: bad } }), bad).toThrow(
        /32-byte key as 64 hex digits or base64/,
      )
    }
  })

  it('creates the key file with mode 0600 on first start and reuses it', () => {
    const keyFile = join(dir(), 'nested', 'secret.key')
    const first = createSecretBox({ env: {}, keyFile })
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(statSync(join(keyFile, '..')).mode & 0o077).toBe(0)
    const sealed = first.seal('kept across restarts')
    const second = createSecretBox({ env: {}, keyFile })
    expect(second.open(sealed)).toBe('kept across restarts')
    expect(readFileSync(keyFile, 'utf8').trim()).toHaveLength(44)
  })

  it('refuses a key file others can read, and a malformed one', () => {
    const d = dir()
    const open = join(d, 'open.key')
    writeFileSync(open, randomBytes(32).toString('base64'))
    chmodSync(open, 0o644)
    expect(() => createSecretBox({ env: {}, keyFile: open })).toThrow(/chmod 600/)
    const bad = join(d, 'bad.key')
    writeFileSync(bad, 'nonsense', { mode: 0o600 })
    expect(() => createSecretBox({ env: {}, keyFile: bad })).toThrow(
      /key file .*bad\.key must hold a 32-byte key/,
    )
  })
})
