// The SSRF corpus: URLs that point at loopback, private and special-purpose addresses in
// every spelling (decimal, octal, hex, short IPv4; IPv6 mapped, compatible, NAT64, 6to4;
// loopback names; names a test resolver maps inward; a name that changes its answer;
// redirects into private space). Listeners on loopback count requests: every refused URL
// must leave them at 0. The resolver is scripted, so the corpus never leaves the machine.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOutboundClient, OutboundError } from '../../src/net/index.js'
import { type Listener, listen, scriptedResolver } from './helpers.js'

let v4: Listener
let v6: Listener
let port: number

beforeAll(async () => {
  v4 = await listen('127.0.0.1')
  port = v4.port
  v6 = await listen('::1', undefined, port)
})

afterAll(async () => {
  await v4.close()
  await v6.close()
})

const resolver = scriptedResolver({
  'loopback.test': ['127.0.0.1'],
  'v6loop.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'private.test': ['10.1.2.3'],
  'mixed.test': ['8.8.8.8', '127.0.0.1'],
  'ula.test': ['fd12:3456::1'],
  'garbage.test': ['not-an-address'],
  'empty.test': [],
})

function corpus(p: number): [string, OutboundError['code']][] {
  return [
    [`http://127.0.0.1:${p}/`, 'blocked-address'],
    [`http://2130706433:${p}/`, 'blocked-address'],
    [`http://0177.0.0.1:${p}/`, 'blocked-address'],
    [`http://0x7f.0.0.1:${p}/`, 'blocked-address'],
    [`http://0x7f000001:${p}/`, 'blocked-address'],
    [`http://0x7f.1:${p}/`, 'blocked-address'],
    [`http://127.1:${p}/`, 'blocked-address'],
    [`http://017700000001:${p}/`, 'blocked-address'],
    [`http://%31%32%37.0.0.1:${p}/`, 'blocked-address'],
    [`http://127.0.0.1.:${p}/`, 'blocked-address'],
    [`HTTP://127.0.0.2:${p}/`, 'blocked-address'],
    [`http://0:${p}/`, 'blocked-address'],
    [`http://0.0.0.0:${p}/`, 'blocked-address'],
    [`http://[::]:${p}/`, 'blocked-address'],
    [`http://[::1]:${p}/`, 'blocked-address'],
    [`http://[0:0:0:0:0:0:0:1]:${p}/`, 'blocked-address'],
    [`http://[::ffff:127.0.0.1]:${p}/`, 'blocked-address'],
    [`http://[::ffff:7f00:1]:${p}/`, 'blocked-address'],
    [`http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`, 'blocked-address'],
    [`http://[::127.0.0.1]:${p}/`, 'blocked-address'],
    [`http://[64:ff9b::127.0.0.1]:${p}/`, 'blocked-address'],
    [`http://[2002:7f00:1::1]:${p}/`, 'blocked-address'],
    [`http://[::7f00:1]:${p}/`, 'blocked-address'],
    [`http://[64:ff9b::7f00:1]:${p}/`, 'blocked-address'],
    [`http://[::ffff:0:7f00:1]:${p}/`, 'blocked-address'],
    [`http://0177.1:${p}/`, 'blocked-address'],
    [`http://127.0.1:${p}/`, 'blocked-address'],
    [`http://0x7f.0x0.0x0.0x1:${p}/`, 'blocked-address'],
    ['http://2852039166/latest/meta-data/', 'blocked-address'],
    ['http://0xa9fea9fe/latest/meta-data/', 'blocked-address'],
    ['http://0251.0376.0251.0376/', 'blocked-address'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'blocked-address'],
    ['http://[2002:c0a8:101::1]/', 'blocked-address'],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'blocked-address'],
    ['http://198.19.255.1/', 'blocked-address'],
    ['http://198.51.100.7/', 'blocked-address'],
    ['http://[2001:2::1]/', 'blocked-address'],
    ['http://[64:ff9b:1::a00:1]/', 'blocked-address'],
    [`http://[::ffff:169.254.169.254]/`, 'blocked-address'],
    ['http://169.254.169.254/latest/meta-data/', 'blocked-address'],
    ['http://10.0.0.1/', 'blocked-address'],
    ['http://172.16.5.4/', 'blocked-address'],
    ['http://192.168.1.1/', 'blocked-address'],
    ['http://100.64.0.1/', 'blocked-address'],
    ['http://198.18.0.1/', 'blocked-address'],
    ['http://192.0.2.10/', 'blocked-address'],
    ['http://203.0.113.5/', 'blocked-address'],
    ['http://224.0.0.1/', 'blocked-address'],
    ['http://255.255.255.255/', 'blocked-address'],
    ['http://[fd00::1]/', 'blocked-address'],
    ['http://[fe80::1]/', 'blocked-address'],
    ['http://[ff02::1]/', 'blocked-address'],
    ['http://[2001:db8::1]/', 'blocked-address'],
    [`http://localhost:${p}/`, 'blocked-address'],
    [`http://localhost.:${p}/`, 'blocked-address'],
    [`http://LOCALHOST:${p}/`, 'blocked-address'],
    [`http://app.localhost:${p}/`, 'blocked-address'],
    [`http://loopback.test:${p}/`, 'blocked-address'],
    [`http://loopback.test.:${p}/`, 'blocked-address'],
    [`http://v6loop.test:${p}/`, 'blocked-address'],
    [`http://mapped.test:${p}/`, 'blocked-address'],
    ['http://metadata.test/latest/meta-data/', 'blocked-address'],
    ['http://private.test/', 'blocked-address'],
    [`http://mixed.test:${p}/`, 'blocked-address'],
    ['http://ula.test/', 'blocked-address'],
    ['http://garbage.test/', 'dns'],
    ['http://empty.test/', 'dns'],
    ['http://unknown.test/', 'dns'],
    [`ftp://127.0.0.1:${p}/`, 'invalid-url'],
    ['file:///etc/passwd', 'invalid-url'],
    [`gopher://127.0.0.1:${p}/`, 'invalid-url'],
    ['http://user:secret@public.test/', 'invalid-url'],
    ['not a url', 'invalid-url'],
  ]
}

describe('SSRF corpus: every refused URL reaches no listener', () => {
  it('refuses each URL with the right code and a message naming the setting', async () => {
    const client = createOutboundClient({ resolver, followRedirects: true })
    const list = corpus(port)
    expect(list.length).toBeGreaterThanOrEqual(30)
    const outcomes: string[] = []
    for (const [url, code] of list) {
      const error = await client.request({ url, timeoutMs: 10_000 }).then(
        () => undefined,
        (e: unknown) => e,
      )
      outcomes.push(`${url} -> ${error instanceof OutboundError ? error.code : `no error: ${String(error)}`}`)
      expect(error, url).toBeInstanceOf(OutboundError)
      expect((error as OutboundError).code, url).toBe(code)
      if (code === 'blocked-address') expect((error as OutboundError).message, url).toMatch(/network\.allow/)
    }
    await client.close()
    expect(v4.count, outcomes.join('\n')).toBe(0)
    expect(v6.count).toBe(0)
  })

  it('names the address, its category and the exact entry that would allow it', async () => {
    const client = createOutboundClient({ resolver })
    await expect(client.request({ url: 'http://metadata.test/' })).rejects.toThrow(
      'refused to connect to 169.254.169.254 (metadata.test resolves to it): it is a link-local (cloud metadata lives here) address; to allow it, add "169.254.169.254"',
    )
    await expect(client.request({ url: `http://[::ffff:10.0.0.7]:${port}/` })).rejects.toThrow(
      /IPv4-mapped private \(RFC 1918\) address; to allow it, add "10\.0\.0\.7"/,
    )
    await client.close()
  })

  it('the listeners do count requests that are allowed (the corpus check is meaningful)', async () => {
    const client = createOutboundClient({ resolver, allow: ['127.0.0.0/8', '::1'] })
    const before = v4.count + v6.count
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://loopback.test:${port}/`,
      `http://[::1]:${port}/`,
    ]) {
      const response = await client.request({ url })
      expect(response.status, url).toBe(200)
    }
    await client.close()
    expect(v4.count + v6.count - before).toBe(6)
    v4.count = 0
    v6.count = 0
  })
})

describe('DNS rebinding and redirects', () => {
  it('a name that changes its answer between lookups is resolved once per connection and pinned', async () => {
    // Only 127.0.0.3 is allowed; the name answers 127.0.0.3 first and 127.0.0.1 afterwards.
    const good = await listen('127.0.0.3', (_q, r) => r.end('good'), port)
    const rebinding = scriptedResolver({ 'rebind.test': [['127.0.0.3'], ['127.0.0.1']] })
    const client = createOutboundClient({ resolver: rebinding, allow: ['127.0.0.3'] })
    try {
      const first = await client.request({ url: `http://rebind.test:${port}/` })
      expect(first.text()).toBe('good')
      expect(rebinding.calls).toEqual(['rebind.test'])
      // A new connection resolves again and is refused: the answer is now loopback.
      const fresh = createOutboundClient({ resolver: rebinding, allow: ['127.0.0.3'] })
      await expect(fresh.request({ url: `http://rebind.test:${port}/` })).rejects.toMatchObject({
        code: 'blocked-address',
      })
      await fresh.close()
      expect(good.count).toBe(1)
      expect(v4.count).toBe(0)
    } finally {
      await client.close()
      await good.close()
    }
  })

  it('refuses redirects unless configured, and checks every hop when following', async () => {
    const target = `http://127.0.0.1:${port}/internal`
    const hops = scriptedResolver({ 'inward.test': ['127.0.0.1'] })
    const redirector = await listen(
      '127.0.0.3',
      (req, res) => {
        const to =
          req.url === '/to-ip'
            ? target
            : req.url === '/to-name'
              ? `http://inward.test:${port}/`
              : req.url === '/to-mapped'
                ? `http://[::ffff:127.0.0.1]:${port}/`
                : `http://0x7f000001:${port}/`
        res.writeHead(302, { location: to }).end()
      },
      0,
    )
    const base = `http://127.0.0.3:${redirector.port}`
    try {
      const strict = createOutboundClient({ resolver: hops, allow: ['127.0.0.3'] })
      await expect(strict.request({ url: `${base}/to-ip` })).rejects.toMatchObject({
        code: 'redirect',
        message: expect.stringContaining('network.followRedirects'),
      })
      await strict.close()
      const following = createOutboundClient({ resolver: hops, allow: ['127.0.0.3'], followRedirects: true })
      for (const path of ['/to-ip', '/to-name', '/to-mapped', '/to-hex']) {
        await expect(following.request({ url: `${base}${path}` }), path).rejects.toMatchObject({
          code: 'blocked-address',
        })
      }
      await following.close()
      expect(redirector.count).toBe(5)
      expect(v4.count).toBe(0)
      expect(v6.count).toBe(0)
    } finally {
      await redirector.close()
    }
  })
})
