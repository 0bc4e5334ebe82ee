// The kit's origin pinning as functions: which request targets are plain paths, and the
// forward URL always on the configured origin with the configured base path kept.

import { describe, expect, it } from 'vitest'
import { navigationRefusal, pinnedUrl, TargetError, targetProblem } from '../../../src/gateway/kit/index.js'

describe('origin pinning', () => {
  const base = new URL('https://api.example.test/openai/')

  it('appends a plain path and its query to the base path, on the base origin', () => {
    const url = pinnedUrl(base, '/v1/chat/completions?x=1')
    expect(url.href).toBe('https://api.example.test/openai/v1/chat/completions?x=1')
  })

  it.each([
    ['//evil.example/x', '"//"'],
    ['/\\evil.example/x', 'backslash'],
    ['http://evil.example/x', 'does not start with "/"'],
    ['*', 'does not start with "/"'],
    ['/%2f%2fevil.example/x', 'encoded slash'],
    ['/%5Cevil.example/x', 'encoded slash or backslash'],
    ['/v1/../x', '".." segment'],
    ['/v1/%2E%2E/x', '".." segment'],
  ])('refuses %s, naming why', (target, why) => {
    expect(targetProblem(target)).toContain(why.replace('".." segment', '".."'))
    expect(() => pinnedUrl(base, target)).toThrow(TargetError)
  })

  it('accepts dots inside names and encoded characters that are not separators', () => {
    expect(targetProblem('/v1/models/gpt-4.1')).toBeUndefined()
    expect(pinnedUrl(base, '/v1/files/a%20b').pathname).toBe('/openai/v1/files/a%20b')
  })

  it('tells navigations from API calls', () => {
    expect(navigationRefusal({ 'sec-fetch-mode': 'navigate' })?.field).toBe('sec-fetch-mode')
    expect(navigationRefusal({ 'sec-fetch-dest': 'document' })?.field).toBe('sec-fetch-dest')
    expect(navigationRefusal({ accept: 'text/html,*/*;q=0.8' })?.field).toBe('accept')
    expect(navigationRefusal({ accept: 'application/json, text/html' })).toBeUndefined()
    expect(navigationRefusal({ accept: '*/*', 'sec-fetch-mode': 'cors' })).toBeUndefined()
  })
})
