// An A2A agent built with the official @a2a-js/sdk: answers a message with an artifact
// streamed in three chunks. It knows nothing about Warden.
//   node examples/a2a/agent.mjs 4000

import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server'
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express'
import express from 'express'

const port = Number(process.argv[2] ?? 4000)
const base = `http://127.0.0.1:${port}`
const text = (value) => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
})

const card = {
  name: 'researcher',
  description: 'answers questions, streaming its answer',
  supportedInterfaces: [
    { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
  ],
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'research',
      name: 'research',
      description: 'looks things up',
      tags: [],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    },
  ],
  signatures: [],
}

const executor = {
  async execute(ctx, bus) {
    const question = ctx.userMessage.parts.map((p) => p.content?.value ?? '').join('')
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId }
    bus.publish(
      AgentEvent.task({
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: 2 },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    )
    // Asked about staging, the answer leaks a key cut across two chunks: only whole-artifact
    // checking sees it. Other answers are harmless.
    const chunks = question.includes('staging')
      ? ['The staging key is sk-live', 'XYZ12345, ', 'do not share.']
      : [`About "${question}": `, 'Paris, ', 'since 508.']
    chunks.forEach((chunk, i) => {
      const artifact = {
        artifactId: 'answer',
        name: 'answer',
        description: '',
        parts: [text(chunk)],
        metadata: undefined,
        extensions: [],
      }
      bus.publish(
        AgentEvent.artifactUpdate({
          ...ids,
          artifact,
          append: i > 0,
          lastChunk: i === chunks.length - 1,
          metadata: undefined,
        }),
      )
    })
    bus.publish(AgentEvent.statusUpdate({ ...ids, status: { state: 3 }, metadata: undefined }))
    bus.finished()
  },
  async cancelTask() {},
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor)
const app = express()
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }))
app.use(
  '/a2a/jsonrpc',
  jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
)
app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
app.listen(port, '127.0.0.1', () => console.log(`researcher agent on ${base}`))
