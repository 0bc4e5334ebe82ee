import { existsSync, mkdtempSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchResult, fmt, quantile, type ServedWarden, serveCompiledWarden } from './lib.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const SECRET_KEY = 'b'.repeat(64)
const ROUNDS = 7
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p))

/** The few browser globals the page-side functions use (this file compiles for Node). */
interface Browserish {
  sessionStorage: { setItem(key: string, value: string): void }
  document: { querySelectorAll(selector: string): { length: number } }
}

function serveWarden(dir: string, db: string): Promise<ServedWarden> {
  return serveCompiledWarden({ dir, db, config: 'hooks: []\n', env: { WARDEN_SECRET_KEY: SECRET_KEY } })
}

/** GETs a path with gzip accepted; returns the bytes on the wire (headers + body) and the body. */
function get(url: string): Promise<{ wire: number; body: Buffer; encoding?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        const head = res.rawHeaders.reduce((n, h) => n + Buffer.byteLength(h) + 2, 20)
        resolve({
          wire: head + body.length,
          body,
          ...(res.headers['content-encoding'] ? { encoding: res.headers['content-encoding'] } : {}),
        })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

async function firstLoad(base: string): Promise<BenchResult> {
  const { gunzipSync } = await import('node:zlib')
  const index = await get(`${base}/`)
  const html = (index.encoding === 'gzip' ? gunzipSync(index.body) : index.body).toString('utf8')
  const assets = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((m) => m[1] as string)
  let wire = index.wire
  let plain = html.length
  let gzipped = index.encoding === 'gzip' ? 1 : 0
  for (const asset of assets) {
    const got = await get(`${base}/${asset}`)
    wire += got.wire
    plain += got.encoding === 'gzip' ? gunzipSync(got.body).length : got.body.length
    if (got.encoding === 'gzip') gzipped++
  }
  const kb = wire / 1024
  return {
    name: `UI first load on loopback: index.html and every asset it names, gzip accepted (${assets.length + 1} files, ${gzipped} sent gzipped), vs the same files uncompressed`,
    value: kb,
    baseline: plain / 1024,
    unit: 'KB',
    goal: 'KB <= 300',
    pass: kb <= 300,
  }
}

async function renderTimes(base: string, tokens: { small: string; big: string }): Promise<BenchResult> {
  const { chromium } = await import('playwright-core')
  if (!CHROMIUM) throw new Error('Chromium is not installed (apt-get install chromium)')
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-sync',
    ],
  })
  const once = async (token: string, rows: number): Promise<{ ms: number; longestTask: number }> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    await context.addInitScript((t: string) => {
      // Runs in the page: the browser's globals, typed loosely here.
      const w = globalThis as unknown as Browserish & { __longest: number }
      w.sessionStorage.setItem('warden.token', t)
      w.__longest = 0
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.__longest = Math.max(w.__longest, entry.duration)
      }).observe({ type: 'longtask' as 'mark', buffered: true })
    }, token)
    const page = await context.newPage()
    await page.goto(`${base}/#/hooks`)
    await page.waitForFunction(
      (n: number) => {
        const w = globalThis as unknown as Browserish & { __at: number }
        if (w.document.querySelectorAll('tbody tr').length < n) return false
        w.__at = performance.now()
        return true
      },
      rows,
      { polling: 'raf', timeout: 60_000 },
    )
    const result = await page.evaluate(() => {
      const w = globalThis as unknown as { __at: number; __longest: number }
      return { ms: w.__at, longestTask: w.__longest }
    })
    await context.close()
    return result
  }
  const small: number[] = []
  const big: number[] = []
  let longest = 0
  try {
    await once(tokens.small, 10)
    await once(tokens.big, 1000)
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['small', 'big'] as const) : (['big', 'small'] as const)
      for (const which of order) {
        const run = await once(tokens[which], which === 'big' ? 1000 : 10)
        ;(which === 'big' ? big : small).push(run.ms)
        if (which === 'big') longest = Math.max(longest, run.longestTask)
      }
    }
  } finally {
    await browser.close()
  }
  const value = quantile(big, 0.5)
  const baseline = quantile(small, 0.5)
  return {
    name: `hooks page, time from navigation to the first render of all rows in Chromium: 1000 hooks vs 10 hooks (median of ${ROUNDS} alternating rounds)`,
    value,
    baseline,
    unit: 'ms',
    goal: 'ratio <= 5',
    pass: value / baseline <= 5,
    extra: {
      '1000 hooks p90 ms': fmt(quantile(big, 0.9)),
      '10 hooks p90 ms': fmt(quantile(small, 0.9)),
      'longest main-thread task with 1000 hooks, ms': fmt(longest),
    },
  }
}

/** The benchmark. */
export default async function ui(): Promise<BenchResult[]> {
  if (!existsSync(join(ROOT, 'dist', 'web', 'index.html')))
    throw new Error('the UI is not built: npm run build')
  const dir = mkdtempSync(join(tmpdir(), 'warden-ui-bench-'))
  const db = join(dir, 'warden.db')
  const { openStore } = await import('../dist/store/index.js')
  const { createAccessToken } = await import('../dist/server/index.js')
  const { createSecretBox } = await import('../dist/secrets/index.js')
  const store = await openStore(db, { secrets: createSecretBox({ env: { WARDEN_SECRET_KEY: SECRET_KEY } }) })
  let tokens: { small: string; big: string }
  try {
    for (const [tenant, count] of [
      ['small', 10],
      ['big', 1000],
    ] as const) {
      for (let i = 0; i < count; i++) {
        await store.putHook({
          name: `hook-${String(i).padStart(4, '0')}`,
          tenant,
          event: i % 3 === 0 ? 'tool.pre' : i % 3 === 1 ? 'tool.post' : 'user.message',
          matcher: i % 2 === 0 ? `^tool_${i}$` : undefined,
          handler: { type: 'deny', reason: `rule ${i}` },
          priority: i % 50,
        })
      }
    }
    tokens = {
      small: (await createAccessToken(store, { name: 'small', tenant: 'small', role: 'viewer' })).token,
      big: (await createAccessToken(store, { name: 'big', tenant: 'big', role: 'viewer' })).token,
    }
  } finally {
    await store.close()
  }
  const server = await serveWarden(dir, db)
  try {
    return [await firstLoad(server.url), await renderTimes(server.url, tokens)]
  } finally {
    await server.stop()
  }
}
