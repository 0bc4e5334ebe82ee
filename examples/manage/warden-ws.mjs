#!/usr/bin/env node
// A small client of Warden's management API (`/ws`), for the terminal:
//   node warden-ws.mjs METHOD ['{"json":"params"}']    one request, prints the answer
//   node warden-ws.mjs --watch decision,approval.requested   prints pushes as they come
// WARDEN_TOKEN holds the access token (warden tokens create); WARDEN_URL the server
// (default http://127.0.0.1:7070). Exit 0 when the answer is ok, 1 otherwise.

const base = (process.env.WARDEN_URL ?? 'http://127.0.0.1:7070').replace(/^http/, 'ws').replace(/\/$/, '')
const token = process.env.WARDEN_TOKEN
if (!token) {
  console.error('set WARDEN_TOKEN to an access token (npx warden tokens create --name me)')
  process.exit(1)
}
const [first, second] = process.argv.slice(2)
if (!first) {
  console.error('usage: warden-ws.mjs METHOD [JSON params] | --watch TOPIC[,TOPIC...]')
  process.exit(1)
}

// Node 22+ has WebSocket built in; older versions use the `ws` package Warden depends on.
const WebSocketClass = globalThis.WebSocket ?? (await import('ws')).default
const socket = new WebSocketClass(`${base}/ws?token=${encodeURIComponent(token)}`)
const send = (method, params) => socket.send(JSON.stringify({ type: 'req', id: 1, method, params }))

socket.addEventListener('open', () => {
  if (first === '--watch') send('subscribe', { events: (second ?? 'decision').split(',') })
  else send(first, second ? JSON.parse(second) : {})
})
socket.addEventListener('message', (message) => {
  const frame = JSON.parse(String(message.data))
  if (frame.type === 'event') {
    console.log(JSON.stringify({ event: frame.event, ...frame.payload }))
    return
  }
  if (!frame.ok || first !== '--watch') {
    console.log(JSON.stringify(frame.ok ? frame.payload : frame.error, null, 2))
    process.exitCode = frame.ok ? 0 : 1
    socket.close()
  }
})
socket.addEventListener('error', () => {
  console.error(`cannot reach ${base}/ws (is warden serve running, and is the token valid?)`)
  process.exit(1)
})
