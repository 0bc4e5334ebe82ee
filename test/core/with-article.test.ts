// Messages built around a value take the article its sound needs: "an approver token",
// "an IPv4-mapped loopback address", "an unspecified address", "a viewer token".

import { describe, expect, it } from 'vitest'
import { withArticle } from '../../src/core/index.js'
import { blockedCategory, parseIp } from '../../src/net/address.js'

describe('withArticle', () => {
  it.each([
    ['approver', 'an approver'],
    ['admin', 'an admin'],
    ['agent', 'an agent'],
    ['editor', 'an editor'],
    ['viewer', 'a viewer'],
    ['IPv4-mapped loopback', 'an IPv4-mapped loopback'],
    ['unspecified', 'an unspecified'],
    ['unique-local', 'a unique-local'],
    ['URL', 'a URL'],
    ['NAT64', 'an NAT64'],
    ['error', 'an error'],
    ['request', 'a request'],
  ])('%s → %s', (word, expected) => {
    expect(withArticle(word)).toBe(expected)
  })

  it('reads right in the address categories the outbound client names', () => {
    const mapped = blockedCategory(parseIp('::ffff:0.0.0.0') as NonNullable<ReturnType<typeof parseIp>>)
    expect(mapped).toBeDefined()
    expect(withArticle(mapped as string)).toMatch(/^an IPv4-mapped /)
  })
})
