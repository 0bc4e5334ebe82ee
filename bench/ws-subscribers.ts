// The management benchmark's `/ws` subscribers, in a child process of their own (this file,
// started with MGMT_BENCH_ROLE=subscribers) so that the load generator's event loop does not
// also read their pushes. Driven over IPC: "open" connects and subscribes them to
// `decision`, "close" waits for the pushes to stop and answers with what each received.

import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { WsClient } from './ws-client.js'

/** Subscribers connected during a round. */
export const SUBSCRIBERS = 20
/** Longest wait for the last pushes of a round to arrive, in ms. */
const SETTLE_MS = 5000

/**
 * The subscribers' child: on "open", connects SUBSCRIBERS clients subscribed to `decision`;
 * on "close", waits for the pushes to stop coming and answers with what each received.
 */
async function subscribersChild(url: string, token: string): Promise<void> {
  let clients: WsClient[] = []
  const send = (message: unknown) => process.send?.(message)
  process.on('message', async (message: { type: string }) => {
    if (message.type === 'open') {
      clients = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => WsClient.connect(url, token)))
      await Promise.all(clients.map((c) => c.call('subscribe', { events: ['decision'] })))
      send({ type: 'subscribed' })
    } else if (message.type === 'close') {
      const total = () => clients.reduce((sum, c) => sum + c.decisions, 0)
      const deadline = performance.now() + SETTLE_MS
      let last = -1
      while (total() !== last && performance.now() < deadline) {
        last = total()
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      send({
        type: 'counts',
        pushes: clients.map((c) => c.decisions),
        dropped: clients.map((c) => c.dropped),
      })
      for (const c of clients) c.close()
      clients = []
    }
  })
  process.on('disconnect', () => process.exit(0))
}

if (process.env.MGMT_BENCH_ROLE === 'subscribers') {
  await subscribersChild(String(process.env.MGMT_BENCH_URL), String(process.env.MGMT_BENCH_TOKEN))
}

/** The subscribers' child process, driven over IPC. */
export interface Subscribers {
  proc: ChildProcess
  open(): Promise<void>
  close(): Promise<{ pushes: number[]; dropped: number[] }>
}

export function startSubscribers(url: string, token: string): Subscribers {
  const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, MGMT_BENCH_ROLE: 'subscribers', MGMT_BENCH_URL: url, MGMT_BENCH_TOKEN: token },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const reply = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: { type: string } & T) => {
        if (message.type !== type) return
        proc.off('message', onMessage)
        proc.off('exit', onExit)
        resolve(message)
      }
      const onExit = (code: number | null) => reject(new Error(`the subscribers exited with ${code}`))
      proc.on('message', onMessage)
      proc.once('exit', onExit)
    })
  return {
    proc,
    async open() {
      const subscribed = reply<unknown>('subscribed')
      proc.send({ type: 'open' })
      await subscribed
    },
    async close() {
      const counts = reply<{ pushes: number[]; dropped: number[] }>('counts')
      proc.send({ type: 'close' })
      return counts
    },
  }
}
