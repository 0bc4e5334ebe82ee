// Approvals answered from the chat channel that was told, as loom does for `approve` hooks:
// the channel gets "Approval needed: the agent wants to run "X". … Reply "yes" to approve
// or "no" to deny.", and while an approval waits, the person's next message on that channel
// answers it (yes → approve, no → deny; anything else gets a one-line hint). Approvals
// queue per channel, oldest first. Nobody answering lets the engine's approval timeout deny;
// a channel that cannot be told makes the approver fail, which denies naming the cause.

import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../core/index.js'
import { toolOf } from '../../core/index.js'

/** Where approval requests are sent: the agent's chat channel. */
export interface ChatChannel {
  /** Sends one message to the person; a rejection denies the approval it was about. */
  send(text: string): Promise<void> | void
  /** Names the channel in the audit trail (`decidedBy: chat:<name>`). Default "chat". */
  name?: string
}

/** What {@link createChatApprovals} gives: the engine's approver and the reply intake. */
export interface ChatApprovals {
  /** Pass as the engine's `approver`. */
  approver: Approver
  /**
   * Hands an incoming chat message to the approvals first: true when it was taken (an
   * answer, or a hint because an approval waits), false when nothing waits.
   */
  handleReply(text: string): Promise<boolean>
  /** Approvals waiting for an answer. */
  pending(): number
}

const APPROVE = new Set(['yes', 'y', 'approve', 'approved', 'ok', '✅', '👍'])
const DENY = new Set(['no', 'n', 'deny', 'denied', 'reject', 'rejected', '❌', '👎'])

interface Waiting {
  what: string
  resolve(answer: ApprovalAnswer): void
}

/** Creates chat approvals on a channel. */
export function createChatApprovals(channel: ChatChannel): ChatApprovals {
  const queue: Waiting[] = []
  const by = `chat:${channel.name ?? 'chat'}`

  const approver: Approver = async (request: ApprovalRequest) => {
    const tool = toolOf(request.event.payload)
    const what = tool ? tool.name : request.event.event
    const why = request.asks.map((a) => a.reason).join('; ')
    return new Promise<ApprovalAnswer>((resolve, reject) => {
      const entry: Waiting = { what, resolve }
      const leave = () => {
        const at = queue.indexOf(entry)
        if (at >= 0) queue.splice(at, 1)
      }
      request.signal.addEventListener('abort', leave, { once: true })
      entry.resolve = (answer) => {
        request.signal.removeEventListener('abort', leave)
        resolve(answer)
      }
      queue.push(entry)
      const text = `Approval needed: the agent wants to run "${what}".${why ? ` ${why}.` : ''} Reply "yes" to approve or "no" to deny.`
      Promise.resolve()
        .then(() => channel.send(text))
        .catch((error: unknown) => {
          leave()
          reject(
            new Error(`the chat channel could not be told: ${(error as Error)?.message ?? String(error)}`),
          )
        })
    })
  }

  async function handleReply(text: string): Promise<boolean> {
    const head = queue[0]
    if (!head) return false
    const reply = text.trim().toLowerCase().slice(0, 32)
    const approved = APPROVE.has(reply)
    if (!approved && !DENY.has(reply)) {
      await channel.send(
        `The agent is paused waiting for your decision on "${head.what}". Reply "yes" to approve or "no" to deny.`,
      )
      return true
    }
    queue.shift()
    head.resolve(
      approved
        ? { outcome: 'approve', by, reason: 'approved from the chat channel' }
        : { outcome: 'reject', by, reason: 'denied from the chat channel' },
    )
    await channel.send(approved ? 'Approved — continuing.' : 'Denied — the agent will work around it.')
    const next = queue[0]
    if (next)
      await channel.send(
        `Next: the agent also wants to run "${next.what}". Reply "yes" to approve or "no" to deny.`,
      )
    return true
  }

  return { approver, handleReply, pending: () => queue.length }
}
