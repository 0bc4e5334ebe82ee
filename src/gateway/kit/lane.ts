// The gateways' fast lane: a request the protocol hands to its lane (a model call, a
// JSON-RPC message) is taken on the plain Node server, ahead of Fastify, when it passes the
// same front door (target pinned, Host, Origin, Sec-Fetch-Site, JSON body, no browser
// navigation) and declares a Content-Length within the body limit; it is then admitted
// under the same in-flight limits and its body read once, counted. Anything else (a refusal
// to answer, a chunked or oversized body, GET, /healthz, /metrics) goes on to Fastify,
// which answers it as before: the lane never answers a refusal of its own but the limits'.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { errorMessage } from '../../core/index.js'
import {
  admitNodeRequest,
  declaredLength,
  type InFlightLimiter,
  readCountedBody,
  writeRefusal,
} from '../../inflight/index.js'
import { type FrontDoor, gatewayRefusal } from '../../net/index.js'
import { navigationRefusal, targetRefusal } from './origin.js'

/** What a protocol puts in its gateway's fast lane. */
export interface GatewayLane {
  /** Whether the lane takes a request with this method and target (others go to Fastify). */
  takes(method: string, url: string): boolean
  /** Answers a request whose body has been read. Must not throw. */
  serve(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void>
}

/** The checks the lane shares with the gateway's server. */
export interface LaneGate {
  door: FrontDoor
  limiter: InFlightLimiter
  maxBodyBytes: number
  /** Answers a request the lane failed on (a bug, never a refusal). */
  fail(req: IncomingMessage, res: ServerResponse, error: unknown): void
}

/**
 * Puts `lane` in front of the Fastify app's request handler on the same server, so that
 * Fastify's settings on the server (timeouts, keep-alive, closing) apply to both.
 */
export function installLane(app: FastifyInstance, lane: GatewayLane, gate: LaneGate): void {
  const server = app.server
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[]
  server.removeAllListeners('request')
  const full = (req: IncomingMessage, res: ServerResponse) => {
    for (const handler of handlers) handler.call(server, req, res)
  }
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!inLane(req, lane, gate)) return full(req, res)
    const ticket = admitNodeRequest(gate.limiter, req, res, gate.maxBodyBytes)
    if (ticket === undefined) return
    if (ticket === 'free') return full(req, res)
    readCountedBody(req, ticket, gate.maxBodyBytes).then(
      (body) => {
        if (!Buffer.isBuffer(body)) {
          if ('refusal' in body) writeRefusal(res, body.refusal, true)
          else res.destroy()
          return
        }
        return lane.serve(req, res, body).catch((error: unknown) => gate.fail(req, res, error))
      },
      (error: unknown) => gate.fail(req, res, error),
    )
  })
}

/** Whether a request goes by the lane: taken by it, let in by the door, its size declared and allowed. */
function inLane(req: IncomingMessage, lane: GatewayLane, gate: LaneGate): boolean {
  const method = req.method ?? 'GET'
  const url = req.url ?? ''
  if (!lane.takes(method, url)) return false
  const headers = req.headers
  if (headers['transfer-encoding'] !== undefined) return false
  const declared = declaredLength(headers['content-length'])
  if (declared === undefined || declared > gate.maxBodyBytes) return false
  return (
    targetRefusal(url) === undefined &&
    gatewayRefusal(gate.door, method, url, headers) === undefined &&
    navigationRefusal(headers) === undefined
  )
}

/** A line for the log naming a request the lane failed on. */
export function laneFailure(req: IncomingMessage, error: unknown): string {
  return `${req.method} ${req.url}: ${errorMessage(error)}`
}
