// The outbound client against real loopback servers (explicitly allowed): size and time
// caps, redirects when configured, header hygiene, error codes; and the address parsing
// and allow-list rules underneath.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  blockedCategory,
  compileAllowList,
  createOutboundClient,
  formatIp,
  type OutboundClient,
  OutboundError,
  parseCidr,
  parseIp,
} from '../../src/net/index.js'
import { type Listener, listen, scriptedResolver } from './helpers.js'

let server: Listener
let other: Listener
let client: OutboundClient
let base: string

beforeAll(async () => {
  other = await listen('127.0.0.4', (req, res) => res.end(JSON.stringify(req.headers)))
  server = await listen('127.0.0.1', (req, res, body) => {
    const url = req.url ?? '/'
    if (url === '/json') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}')
    if (url === '/echo') return res.end(`${req.method} ${body}`)
    if (url === '/big') return res.end('x'.repeat(4096))
    if (url === '/big-chunked') {
      res.write('x'.repeat(3000))
      res.write('x'.repeat(3000))
      return res.end()
    }
    if (url === '/slow') return setTimeout(() => res.end('late'), 5_000).unref()
    if (url === '/stall') {
      res.writeHead(200, { 'content-type': 'text/plain' }).write('partial')
      return setTimeout(() => res.end('late'), 5_000).unref()
    }
    if (url === '/see-other') return res.writeHead(303, { location: '/echo' }).end()
    if (url === '/elsewhere') return res.writeHead(307, { location: `http://127.0.0.4:${other.port}/` }).end()
    if (url === '/loop') return res.writeHead(302, { location: '/loop' }).end()
    res.end('ok')
  })
  base = `http://127.0.0.1:${server.port}`
  client = createOutboundClient({ allow: ['127.0.0.0/8'], maxResponseBytes: 5000, timeoutMs: 10_000 })
})

afterAll(async () => {
  await client.close()
  await server.close()
  await other.close()
})

describe('outbound client', () => {
  it('posts a body and reads the answer as text and JSON', async () => {
    const echo = await client.request({ url: `${base}/echo`, method: 'POST', body: 'hello' })
    expect(echo.status).toBe(200)
    expect(echo.text()).toBe('POST hello')
    const json = await client.request({ url: `${base}/json` })
    expect(json.json()).toEqual({ a: 1 })
    expect(json.headers['content-type']).toBe('application/json')
    expect(json.url).toBe(`${base}/json`)
  })

  it('caps the response size, declared or streamed', async () => {
    await expect(client.request({ url: `${base}/big` })).resolves.toMatchObject({ status: 200 })
    await expect(client.request({ url: `${base}/big`, maxResponseBytes: 1000 })).rejects.toMatchObject({
      code: 'too-large',
      message: expect.stringContaining('network.maxResponseBytes'),
    })
    await expect(client.request({ url: `${base}/big-chunked` })).rejects.toMatchObject({ code: 'too-large' })
  })

  it('times out (waiting for headers or for the rest of the body), and tells a caller abort from a timeout', async () => {
    await expect(client.request({ url: `${base}/slow`, timeoutMs: 200 })).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringContaining('200 ms'),
    })
    await expect(client.request({ url: `${base}/stall`, timeoutMs: 200 })).rejects.toMatchObject({
      code: 'timeout',
    })
    const controller = new AbortController()
    const pending = client.request({ url: `${base}/slow`, signal: controller.signal })
    setTimeout(() => controller.abort(), 100)
    await expect(pending).rejects.toMatchObject({ code: 'aborted' })
    const stalled = new AbortController()
    const reading = client.request({ url: `${base}/stall`, signal: stalled.signal })
    setTimeout(() => stalled.abort(), 100)
    await expect(reading).rejects.toMatchObject({ code: 'aborted' })
    const already = new AbortController()
    already.abort()
    await expect(client.request({ url: base, signal: already.signal })).rejects.toMatchObject({
      code: 'aborted',
    })
  })

  it('refuses reserved and malformed headers', async () => {
    await expect(client.request({ url: base, headers: { Host: 'evil.test' } })).rejects.toMatchObject({
      code: 'invalid-request',
    })
    await expect(client.request({ url: base, headers: { 'x-a': 'b\r\nx-b: c' } })).rejects.toMatchObject({
      code: 'invalid-request',
    })
  })

  it('reports an unreachable server as a connect error', async () => {
    const closed = await listen('127.0.0.1')
    const port = closed.port
    await closed.close()
    await expect(client.request({ url: `http://127.0.0.1:${port}/` })).rejects.toMatchObject({
      code: 'connect',
    })
  })

  it('follows redirects only when configured: 303 becomes GET, credentials stay on their origin', async () => {
    const following = createOutboundClient({ allow: ['127.0.0.0/8'], followRedirects: 3 })
    try {
      const seeOther = await following.request({ url: `${base}/see-other`, method: 'POST', body: 'data' })
      expect(seeOther.text()).toBe('GET ')
      expect(seeOther.url).toBe(`${base}/echo`)
      const moved = await following.request({
        url: `${base}/elsewhere`,
        method: 'POST',
        body: '{}',
        headers: { Authorization: 'Bearer s3cret', 'content-type': 'application/json', 'x-team': 'a' },
      })
      const seen = moved.json() as Record<string, string>
      expect(seen.authorization).toBeUndefined()
      expect(seen['x-team']).toBeUndefined()
      expect(seen['content-type']).toBe('application/json')
      await expect(following.request({ url: `${base}/loop` })).rejects.toMatchObject({ code: 'redirect' })
    } finally {
      await following.close()
    }
  })

  it('allows a host by name whatever it resolves to, and *.suffix names', async () => {
    const resolver = scriptedResolver({ 'hooks.internal': ['127.0.0.1'], 'a.corp.test': ['127.0.0.1'] })
    const byName = createOutboundClient({ resolver, allow: ['hooks.internal', '*.corp.test'] })
    try {
      expect((await byName.request({ url: `http://hooks.internal:${server.port}/` })).text()).toBe('ok')
      expect((await byName.request({ url: `http://a.corp.test:${server.port}/` })).text()).toBe('ok')
      await expect(byName.request({ url: `http://127.0.0.1:${server.port}/` })).rejects.toMatchObject({
        code: 'blocked-address',
      })
    } finally {
      await byName.close()
    }
  })

  it('refuses malformed allow entries with a message naming the entry', () => {
    expect(() => createOutboundClient({ allow: ['10.0.0.0/33'] })).toThrow(/"10\.0\.0\.0\/33" is neither/)
    expect(() => compileAllowList(['http://x'])).toThrow(OutboundError)
    expect(compileAllowList(['fd00::/8', 'Hooks.Internal.']).hosts.has('hooks.internal')).toBe(true)
  })
})

describe('address rules', () => {
  it('parses canonical IPv4 and IPv6 text only', () => {
    expect(formatIp(parseIp('::ffff:127.0.0.1')!)).toBe('::ffff:7f00:1')
    expect(formatIp(parseIp('[2001:0db8:0:0:1:0:0:1]')!)).toBe('2001:db8::1:0:0:1')
    expect(formatIp(parseIp('fe80::1%eth0')!)).toBe('fe80::1')
    for (const bad of ['0177.0.0.1', '127.1', '256.0.0.1', '1:2:3:4:5:6:7:8:9', '1::2::3', 'x', '']) {
      expect(parseIp(bad), bad).toBeUndefined()
    }
    expect(parseCidr('10.0.0.0/8')?.prefix).toBe(8)
    expect(parseCidr('::1')?.prefix).toBe(128)
  })

  it('lets public addresses through, including public IPv4 inside NAT64 and 6to4', () => {
    for (const ok of [
      '8.8.8.8',
      '1.1.1.1',
      '2606:4700::1111',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '::ffff:8.8.8.8',
      '::ffff:0:808:808',
    ]) {
      expect(blockedCategory(parseIp(ok)!), ok).toBeUndefined()
    }
    expect(blockedCategory(parseIp('64:ff9b::a00:1')!)).toBe('NAT64 form of a private (RFC 1918) address')
    expect(blockedCategory(parseIp('::1')!)).toBe('loopback')
    expect(blockedCategory(parseIp('::')!)).toBe('unspecified')
    expect(blockedCategory(parseIp('::7f00:1')!)).toBe('IPv4-compatible (deprecated)')
    expect(blockedCategory(parseIp('2002:c0a8:101::1')!)).toBe('6to4 form of a private (RFC 1918) address')
    expect(blockedCategory(parseIp('::ffff:0:a9fe:a9fe')!)).toMatch(/^IPv4-translated form of a link-local/)
    expect(blockedCategory(parseIp('2001:0:4136:e378:8000:63bf:3fff:fdd2')!)).toBe('Teredo tunnel')
    expect(blockedCategory(parseIp('2001:2::1')!)).toBe('benchmarking')
    expect(blockedCategory(parseIp('198.19.255.255')!)).toBe('benchmarking')
    expect(blockedCategory(parseIp('198.20.0.0')!)).toBeUndefined()
    expect(blockedCategory(parseIp('100.127.255.255')!)).toBe('carrier-grade NAT (CGNAT)')
    expect(blockedCategory(parseIp('100.128.0.0')!)).toBeUndefined()
  })
})
