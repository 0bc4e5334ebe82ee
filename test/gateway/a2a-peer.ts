// The real peers of the A2A gateway tests: an official @a2a-js/sdk server agent (express,
// JSON-RPC and HTTP+JSON) whose executor echoes, streams artifacts in several chunks,
// runs until cancelled, and accepts push configs; and SDK clients made from a card URL.

import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type AgentCard, type Message, Role, TaskState } from '@a2a-js/sdk'
import { type Client, ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client'
import {
  AgentEvent,
  type AgentExecutor,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server'
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express'
import express from 'express'

/** A running SDK agent. */
export interface PeerAgent {
  url: URL
  /** Tasks the executor is running now. */
  running(): number
  /** SSE responses the agent has open now (its side of the streams). */
  openStreams(): number
  /** Calls (POST and DELETE requests) the agent has received. */
  calls(): number
  close(): Promise<void>
}

function text(value: string): Message['parts'][number] {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' }
}

/** A user message as the SDK client sends it. */
export function userMessage(value: string, ids: { contextId?: string; taskId?: string } = {}): Message {
  return {
    messageId: globalThis.crypto.randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [text(value)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  }
}

/** The text of a message or artifact's parts. */
export function partsText(
  parts: readonly { content?: { $case: string; value?: unknown } }[] | undefined,
): string {
  return (parts ?? []).map((p) => (p.content?.$case === 'text' ? String(p.content.value) : '')).join('')
}

interface PeerState {
  running: number
  open: number
  calls: number
  closing: boolean
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The executor: `stream:N:TEXT` sends TEXT as an artifact in N chunks then completes (at
 * once when TEXT starts with `burst`, else 2 ms apart);
 * `restate:A|B` sends artifact chunks A then B, each with `append: false` (B replaces A), then
 * completes; `forever` streams a chunk every 20 ms until cancelled or abandoned; anything else
 * is answered by a message `echo: TEXT`.
 */
function executor(state: PeerState): AgentExecutor {
  const cancelled = new Set<string>()
  return {
    async execute(ctx, bus) {
      const input = partsText(ctx.userMessage.parts)
      const ids = { taskId: ctx.taskId, contextId: ctx.contextId }
      if (!input.startsWith('stream:') && !input.startsWith('restate:') && input !== 'forever') {
        const reply = userMessage(`echo: ${input}`, { contextId: ctx.contextId })
        bus.publish(AgentEvent.message({ ...reply, role: Role.ROLE_AGENT }))
        bus.finished()
        return
      }
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: {
            state: TaskState.TASK_STATE_WORKING,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }),
      )
      const chunk = (value: string, index: number, last: boolean) =>
        AgentEvent.artifactUpdate({
          ...ids,
          artifact: {
            artifactId: 'answer',
            name: 'answer',
            description: '',
            parts: [text(value)],
            metadata: undefined,
            extensions: [],
          },
          append: index > 0,
          lastChunk: last,
          metadata: undefined,
        })
      state.running++
      try {
        if (input.startsWith('restate:')) {
          const versions = input.slice('restate:'.length).split('|')
          for (const [index, version] of versions.entries()) {
            bus.publish(chunk(version, 0, index === versions.length - 1))
          }
          bus.publish(
            AgentEvent.statusUpdate({
              ...ids,
              status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
              metadata: undefined,
            }),
          )
        } else if (input === 'forever') {
          for (let i = 0; !cancelled.has(ctx.taskId) && !state.closing; i++) {
            bus.publish(chunk(`tick ${i} `, i, false))
            await sleep(20)
            if (i > 3000) break
          }
          bus.publish(
            AgentEvent.statusUpdate({
              ...ids,
              status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: undefined },
              metadata: undefined,
            }),
          )
        } else {
          const [, count, ...rest] = input.split(':')
          const body = rest.join(':')
          const n = Math.max(1, Number(count))
          const size = Math.ceil(body.length / n)
          for (let i = 0; i < n; i++) {
            bus.publish(chunk(body.slice(i * size, (i + 1) * size), i, i === n - 1))
            if (!body.startsWith('burst')) await sleep(2)
          }
          bus.publish(
            AgentEvent.statusUpdate({
              ...ids,
              status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
              metadata: undefined,
            }),
          )
        }
      } finally {
        state.running--
        bus.finished()
      }
    },
    async cancelTask(taskId) {
      cancelled.add(taskId)
    },
  }
}

/**
 * Starts an SDK agent on loopback with JSON-RPC at /a2a/jsonrpc and HTTP+JSON at /a2a/rest;
 * with `pushes`, the SDK's own sender POSTs task events to the push-notification URLs it was given.
 */
export async function startPeerAgent(
  name = 'peer-agent',
  options: { pushes?: boolean } = {},
): Promise<PeerAgent> {
  const state: PeerState = { running: 0, open: 0, calls: 0, closing: false }
  const app = express()
  app.use((req, res, next) => {
    if (req.method === 'POST' || req.method === 'DELETE') state.calls++
    if (String(req.headers.accept).includes('text/event-stream')) {
      state.open++
      res.on('close', () => state.open--)
    }
    next()
  })
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const card: AgentCard = {
    name,
    description: 'echoes, streams artifacts in chunks, runs until cancelled',
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extensions: [],
      extendedAgentCard: false,
    } as AgentCard['capabilities'],
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'echo',
        description: 'echoes',
        tags: ['echo'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
      {
        id: 'admin',
        name: 'admin',
        description: 'internal',
        tags: ['admin'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ] as AgentCard['skills'],
    signatures: [],
  }
  const pushStore = new InMemoryPushNotificationStore()
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor(state),
    undefined,
    pushStore,
    options.pushes ? new DefaultPushNotificationSender(pushStore) : { send: async () => undefined },
  )
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }))
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  )
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
  return {
    url: new URL(`${base}/`),
    running: () => state.running,
    openStreams: () => state.open,
    calls: () => state.calls,
    close: () =>
      new Promise<void>((resolve) => {
        state.closing = true
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** An SDK client for the agent at `url` (its card decides where calls go). */
export function clientFor(url: URL, transport: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC'): Promise<Client> {
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
    preferredTransports: [transport],
  })
  return factory.createFromUrl(url.href)
}
