// loom fidelity, agent.json actions (loom's agents/hooks.md): an `approve` action pauses the
// call and the agent's channel is told "Approval needed: …", the person's reply on that
// channel resolving it; a `webhook` posts loom's body to a loopback receiver.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createChatApprovals } from '../../src/adapters/loom/index.js'
import { createEngine, type Decision } from '../../src/index.js'
import { createProfileActionHandler, parseProfile } from '../../src/sources/index.js'

function shop(send: (text: string) => void | Promise<void>, approvalTimeoutMs = 5_000) {
  const profile = parseProfile(
    JSON.stringify({ name: 'shop', hooks: { onToolCall: [{ action: 'approve', tools: ['send_*'] }] } }),
    '/profiles/shop/agent.json',
  )
  expect(profile.problems).toEqual([])
  const chat = createChatApprovals({ name: 'telegram', send })
  const engine = createEngine({
    hooks: profile.hooks,
    handlers: [createProfileActionHandler()],
    approver: chat.approver,
    limits: { approvalTimeoutMs },
  })
  return { chat, engine }
}

const refund = { event: 'tool.pre', payload: { tool: { name: 'send_refund', input: { amount: 20 } } } }

/** Resolves once the channel has been sent `count` messages. */
function sentCount(sent: string[], count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (sent.length >= count ? resolve() : setImmediate(check))
    check()
  })
}

describe('loom', () => {
  // "the agent's channel sends "Approval needed: the agent wants to run "send_refund". Reply
  //  "yes" to approve or "no" to deny." — and the person's reply resolves it."
  it('an approval is answered from the chat channel that was notified: "yes" approves', async () => {
    const sent: string[] = []
    const { chat, engine } = shop((text) => void sent.push(text))
    const pending = engine.dispatch(refund)
    await sentCount(sent, 1)
    expect(sent[0]).toMatch(
      /^Approval needed: the agent wants to run "send_refund"\..*Reply "yes" to approve or "no" to deny\.$/,
    )
    expect(await chat.handleReply('what is this?')).toBe(true)
    expect(sent[1]).toBe(
      'The agent is paused waiting for your decision on "send_refund". Reply "yes" to approve or "no" to deny.',
    )
    expect(await chat.handleReply('Yes')).toBe(true)
    const decision: Decision = await pending
    expect(decision.decision).toBe('allow')
    expect(decision.approval).toMatchObject({ outcome: 'approved', by: 'chat:telegram' })
    expect(await chat.handleReply('yes')).toBe(false)
    await engine.close()
  })

  it('"no" on the chat channel denies, and the model is told why', async () => {
    const sent: string[] = []
    const { chat, engine } = shop((text) => void sent.push(text))
    const pending = engine.dispatch(refund)
    await sentCount(sent, 1)
    await chat.handleReply('no')
    const decision = await pending
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toContain('denied from the chat channel')
    await engine.close()
  })

  // "Nobody answers → the gateway's HITL timeout … denies."
  it('nobody answering on the chat channel denies when the approval times out', async () => {
    const sent: string[] = []
    const { chat, engine } = shop((text) => void sent.push(text), 100)
    const decision = await engine.dispatch(refund)
    expect(decision.decision).toBe('deny')
    expect(decision.approval?.outcome).toBe('timeout')
    expect(chat.pending()).toBe(0)
    expect(await chat.handleReply('yes')).toBe(false)
    await engine.close()
  })

  // "No approval surface available at all … → fail-closed deny with an honest reason."
  it('a channel that cannot be told denies, naming the cause', async () => {
    const { engine } = shop(() => Promise.reject(new Error('telegram is down')))
    const decision = await engine.dispatch(refund)
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toContain('telegram is down')
    await engine.close()
  })

  // "Sends this JSON body: { v: 1, ts, profile, event, context: { event, turnIndex, toolName, toolInput } }"
  it("a webhook action posts loom's body: v, ts, profile, event and the hook context", async () => {
    const bodies: unknown[] = []
    const server: Server = createServer((req, res) => {
      let text = ''
      req.on('data', (chunk) => {
        text += chunk
      })
      req.on('end', () => {
        bodies.push(JSON.parse(text))
        res.end('ok')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/audit`
    const profile = parseProfile(
      JSON.stringify({ name: 'shop', hooks: { onToolCall: [{ action: 'webhook', url }] } }),
      '/profiles/shop/agent.json',
      { webhookAllow: [url] },
    )
    expect(profile.problems).toEqual([])
    const engine = createEngine({
      hooks: profile.hooks,
      handlers: [createProfileActionHandler({ webhookAllow: [url] })],
    })
    const before = Date.now()
    await engine.dispatch({ ...refund, context: { session: { id: 's1' }, turnIndex: 2 } })
    await engine.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    expect(bodies).toMatchObject([
      {
        v: 1,
        profile: 'shop',
        event: 'tool.pre',
        context: { event: 'tool.pre', turnIndex: 2, toolName: 'send_refund', toolInput: { amount: 20 } },
      },
    ])
    expect((bodies[0] as { ts: number }).ts).toBeGreaterThanOrEqual(before)
  })
})
