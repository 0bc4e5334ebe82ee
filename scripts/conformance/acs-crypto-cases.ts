// Conformance cases of signature negotiation (§4, §10.1, ACS-Crypto): what the ServerHello
// declares, that a client offering only the baseline gets baseline-signed answers, and that
// a request signed with an algorithm or key the Guardian does not hold is refused -32004.
// Cases that need the shared HMAC key skip without one.

import { randomUUID } from 'node:crypto'
import {
  acsRequest,
  clientHello,
  generateSigningKeyPair,
  responseSigned,
  signingKey,
} from '../../src/protocols/acs/index.js'
import type { ConformanceCase } from './acs-cases.js'

function expect(condition: unknown, message: string): void {
  if (!condition) throw new Error(message)
}

const TOOL = { tool: { id: 'get_weather' }, arguments: { city: { value: 'Barcelona' } } }

export const CRYPTO_CASES: ConformanceCase[] = [
  {
    section: '§4 / §10.1',
    title:
      'the ServerHello declares signature_algorithms_supported, HMAC-SHA256 (the Core baseline) among them',
    async run(ctx) {
      const hello = await ctx.post(clientHello(randomUUID(), {}, ctx.key ? { key: ctx.key } : {}))
      const algorithms = hello?.result?.signature_algorithms_supported
      expect(
        Array.isArray(algorithms),
        `no signature_algorithms_supported: ${JSON.stringify(hello).slice(0, 200)}`,
      )
      expect(algorithms.includes('HMAC-SHA256'), `HMAC-SHA256 is not declared: ${JSON.stringify(algorithms)}`)
    },
  },
  {
    section: '§10.1',
    title:
      'a client offering only HMAC-SHA256 gets its answers signed with HMAC-SHA256 under the session key',
    async run(ctx) {
      if (!ctx.key) return 'skip'
      const sessionId = randomUUID()
      const hello = await ctx.post(
        clientHello(sessionId, { signature_algorithms_supported: ['HMAC-SHA256'] }, { key: ctx.key }),
      )
      expect(hello?.result, `handshake/hello failed: ${JSON.stringify(hello).slice(0, 200)}`)
      const answer = await ctx.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: ctx.key }))
      expect(
        answer?.result?.signature?.algorithm === 'HMAC-SHA256',
        'the answer is not signed with HMAC-SHA256',
      )
      expect(responseSigned(answer, ctx.key, sessionId), 'the answer signature does not verify')
    },
  },
  {
    section: '§10 / §10.1 / §17.1',
    title: 'a request signed with an asymmetric key the Guardian does not hold is refused with -32004',
    async run(ctx) {
      if (!ctx.key) return 'skip'
      const sessionId = randomUUID()
      await ctx.post(clientHello(sessionId, {}, { key: ctx.key }))
      const stranger = signingKey(
        `conformance-${randomUUID()}`,
        'Ed25519',
        generateSigningKeyPair('Ed25519').privateKey,
      )
      const answer = await ctx.post(
        acsRequest('steps/toolCallRequest', TOOL, { sessionId, signer: stranger }),
      )
      expect(answer?.error?.code === -32004, `expected -32004, got ${JSON.stringify(answer).slice(0, 200)}`)
    },
  },
]
