import { Pool } from 'undici'
const A = '/work/wt-llmperf-old/src', B = '/work/wt-llmperf/src'
const load = async (root: string) => ({
  core: await import(`${root}/core/index.js`),
  gw: await import(`${root}/gateway/index.js`),
  src: await import(`${root}/sources/index.js`),
})
const { startModelServer } = await import('/work/wt-llmperf/test/gateway/llm-upstream.js')
const up = await startModelServer([{ text: Array.from({ length: 1000 }, (_, i) => 'tok' + i + ' ') }])
async function gateway(root: string) {
  const m = await load(root)
  const fn = () => m.core.allow()
  const engine = m.src.buildEngine(undefined, { extraHooks: ['user.message', 'model.pre', 'tool.pre'].map((event, i) => ({ name: 'h' + i, event, handler: { type: 'fn', fn } })) })
  const g = await m.gw.startLlmGateway({ engine, upstream: new URL(up.url) })
  return new Pool(g.url.origin, { connections: 2 })
}
const direct = new Pool(up.url, { connections: 2 })
const old = await gateway(A), neu = await gateway(B)
const body = JSON.stringify({ model: 'c', max_tokens: 2000, stream: false, tools: [{ name: 'Bash', input_schema: { type: 'object' } }], messages: [{ role: 'user', content: 'count' }] })
const H = { 'content-type': 'application/json', 'x-api-key': 'sk', 'anthropic-version': '2023-06-01' }
const sbody = body.replace('"stream":false', '"stream":true')
async function first(p: Pool) { const t = performance.now(); const a = await p.request({ path: '/v1/messages', method: 'POST', headers: H, body: sbody }); let f = 0; for await (const c of a.body) { if (!f && String(c).includes('text_delta')) f = performance.now() - t }; up.requests.length = 0; return f }
async function call(p: Pool) { if (process.env.STREAM) return first(p); const t = performance.now(); const a = await p.request({ path: '/v1/messages', method: 'POST', headers: H, body }); await a.body.text(); up.requests.length = 0; return performance.now() - t }
const r: Record<string, number[]> = { direct: [], old: [], neu: [] }
for (let i = 0; i < 200; i++) { await call(direct); await call(old); await call(neu) }
for (let i = 0; i < Number(process.env.N ?? 3000); i++) {
  const order = i % 3 === 0 ? ['direct', 'old', 'neu'] : i % 3 === 1 ? ['neu', 'direct', 'old'] : ['old', 'neu', 'direct']
  for (const k of order) r[k]!.push(await call(k === 'direct' ? direct : k === 'old' ? old : neu))
}
const q = (a: number[], p: number) => a.slice().sort((x, y) => x - y)[Math.floor(a.length * p)]!
const d = q(r.direct!, 0.5)
console.log(`direct p50 ${d.toFixed(3)}  old added ${(q(r.old!, 0.5) - d).toFixed(3)}  new added ${(q(r.neu!, 0.5) - d).toFixed(3)}`)
process.exit(0)
