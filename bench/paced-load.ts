// An open-loop load generator for HTTP benchmarks: it sends requests at a steady pace
// spread over every millisecond (autocannon's own rate limit sends each connection's
// per-second quota back to back and then idles, so "half rate" would still be bursts at
// full speed), and measures each request from the moment it was due to its complete
// response, so waiting for a free connection counts too.

import { connect, type Socket } from 'node:net'
import { quantile } from './lib.js'

/** What a load run measured. */
export interface Load {
  rps: number
  p50: number
  p99: number
  errors: number
}

/**
 * Open-loop load: every millisecond, sends the requests due by then at `rate` per second,
 * each on an idle keep-alive connection. A request's latency runs from the moment it was
 * due to its complete response, so waiting for a connection counts too.
 */
export async function pacedLoad(
  url: string,
  body: string,
  rate: number,
  seconds: number,
  connections: number,
  warmupSeconds = 1,
  headers: Record<string, string> = {},
): Promise<Load> {
  const target = new URL(url)
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  const wire = Buffer.from(
    `POST /aos HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
  const latencies: number[] = []
  /** Requests due before this moment warm the generator up and are not counted. */
  let countFrom = Number.POSITIVE_INFINITY
  const due: number[] = []
  let next = 0
  let errors = 0
  let outstanding = 0
  interface Conn {
    socket: Socket
    since: number
    buffer: Buffer
  }
  const idle: Conn[] = []
  const send = (conn: Conn) => {
    conn.since = due[next++] as number
    outstanding++
    conn.socket.write(wire)
  }
  const onData = (conn: Conn, chunk: Buffer) => {
    conn.buffer = conn.buffer.length === 0 ? chunk : Buffer.concat([conn.buffer, chunk])
    for (;;) {
      const end = conn.buffer.indexOf('\r\n\r\n')
      if (end < 0) return
      const head = conn.buffer.toString('latin1', 0, end)
      const size = end + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
      if (conn.buffer.length < size) return
      if (!head.startsWith('HTTP/1.1 200')) errors++
      else if (conn.since >= countFrom) latencies.push(performance.now() - conn.since)
      conn.buffer = conn.buffer.subarray(size)
      outstanding--
      if (next < due.length) send(conn)
      else idle.push(conn)
    }
  }
  const conns = await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<Conn>((resolve, reject) => {
          const socket = connect(Number(target.port), target.hostname, () => resolve(conn))
          const conn: Conn = { socket, since: 0, buffer: Buffer.alloc(0) }
          socket.setNoDelay(true)
          socket.on('error', reject)
          socket.on('data', (chunk: Buffer) => onData(conn, chunk))
        }),
    ),
  )
  idle.push(...conns)
  const start = performance.now()
  countFrom = start + warmupSeconds * 1000
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now()
      if (now - start >= (warmupSeconds + seconds) * 1000) {
        clearInterval(timer)
        resolve()
        return
      }
      const count = Math.floor(((now - start) / 1000) * rate) - due.length
      for (let i = 0; i < count; i++) due.push(now)
      while (next < due.length && idle.length > 0) send(idle.pop() as Conn)
    }, 1)
  })
  const deadline = performance.now() + 5000
  while ((outstanding > 0 || next < due.length) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  errors += outstanding + (due.length - next)
  for (const conn of conns) conn.socket.destroy()
  return {
    rps: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    errors,
  }
}
