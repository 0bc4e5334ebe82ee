// Warden around an MCP SDK `Client` (`@modelcontextprotocol/sdk`), in process, with no
// gateway: every `callTool` goes through `tool.pre` / `tool.post`, every `readResource` and
// `getPrompt` through `mcp.outbound` / `mcp.inbound`. A deny throws (the call never
// reaches the server, or its result never reaches the caller); a modify rewrites the
// arguments sent or the result returned.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Decision, DispatchInput, EventContext, Json, JsonObject } from '../../core/index.js'
import { type BackendOptions, crashed, settle, toSend, type WardenSource } from '../backend.js'
import {
  asInput,
  isObject,
  modifiedToolInput,
  modifiedToolOutput,
  toJson,
  WardenDeniedError,
} from '../decisions.js'

/** Options of {@link guardMcpClient}. */
export interface McpClientOptions extends BackendOptions {
  /** Context merged into every event (tenantId, agent, session). */
  context?: EventContext
  /** The server's name, recorded with each event (default the server's own name). */
  server?: string
}

type Guarded = Pick<Client, 'callTool' | 'readResource' | 'getPrompt'>

/**
 * Wraps the client in place (its `callTool`, `readResource` and `getPrompt`) and returns it.
 * @throws WardenDeniedError from a wrapped call that Warden denies.
 */
export function guardMcpClient<C extends Guarded>(
  client: C,
  source: WardenSource,
  options: McpClientOptions = {},
): C {
  const send = toSend(source, options)
  // Fail-closed as toBackend's backend is; callTool, the hot path, does the same inline so
  // that no promise of the adapter's own stands between the engine and its await.
  const ask = async (input: DispatchInput): Promise<Decision> => {
    try {
      return settle(await send(input), input.event)
    } catch (error) {
      return crashed(input.event, error)
    }
  }
  let known: EventContext | undefined
  const context = (): EventContext => {
    if (known) return known
    const name = options.server ?? (client as unknown as Client).getServerVersion?.()?.name
    const made = { ...options.context, mcpServer: name ?? 'mcp' }
    if (name) known = made
    return made
  }
  const callTool = client.callTool.bind(client)
  const readResource = client.readResource.bind(client)
  const getPrompt = client.getPrompt.bind(client)

  client.callTool = (async (params, ...rest) => {
    const tool: JsonObject = { name: params.name, input: asInput(params.arguments ?? {}) }
    let before: Decision
    try {
      before = settle(await send({ event: 'tool.pre', payload: { tool }, context: context() }), 'tool.pre')
    } catch (error) {
      before = crashed('tool.pre', error)
    }
    if (before.decision === 'deny') throw new WardenDeniedError(before, `the MCP tool call ${params.name}`)
    const input = modifiedToolInput(before)
    const sent = input ? { ...params, arguments: input } : params
    const result = await callTool(sent, ...rest)
    const content = (result as { content?: unknown }).content
    // The result came off the wire as JSON, so it is passed as it is.
    const output = (content ?? result) as Json
    const done = { name: params.name, input: input ?? tool.input, output, isError: result.isError === true }
    let after: Decision
    try {
      after = settle(
        await send({ event: 'tool.post', payload: { tool: done }, context: context() }),
        'tool.post',
      )
    } catch (error) {
      after = crashed('tool.post', error)
    }
    if (after.decision === 'deny')
      throw new WardenDeniedError(after, `the result of the MCP tool ${params.name}`)
    const rewritten = modifiedToolOutput(after)
    if (!rewritten) return result
    const replacement = rewritten.output
    const replaced = Array.isArray(replacement)
      ? replacement
      : [{ type: 'text', text: typeof replacement === 'string' ? replacement : JSON.stringify(replacement) }]
    return { ...result, content: replaced, structuredContent: undefined }
  }) as C['callTool']

  async function around<P extends { [key: string]: unknown }, R>(
    method: string,
    params: P,
    request: (p: P) => Promise<R>,
  ): Promise<R> {
    const message = { jsonrpc: '2.0', id: 0, method, params: toJson(params) }
    const out = await ask({
      event: 'mcp.outbound',
      payload: { mcp: { message, method, direction: 'outbound' } },
      context: context(),
    })
    if (out.decision === 'deny') throw new WardenDeniedError(out, `the MCP ${method} request`)
    const changed = out.decision === 'modify' ? messageOf(out.payload) : undefined
    const sent = (changed && isObject(changed.params) ? changed.params : params) as P
    const result = await request(sent)
    const answer = { jsonrpc: '2.0', id: 0, result: toJson(result) }
    const back = await ask({
      event: 'mcp.inbound',
      payload: { mcp: { message: answer, method, direction: 'inbound' } },
      context: context(),
    })
    if (back.decision === 'deny') throw new WardenDeniedError(back, `the MCP ${method} answer`)
    const returned = back.decision === 'modify' ? messageOf(back.payload) : undefined
    return (returned && isObject(returned.result) ? returned.result : result) as R
  }

  client.readResource = ((params, ...rest) =>
    around('resources/read', params, (p) => readResource(p, ...rest))) as C['readResource']
  client.getPrompt = ((params, ...rest) =>
    around('prompts/get', params, (p) => getPrompt(p, ...rest))) as C['getPrompt']
  return client
}

function messageOf(payload: JsonObject | undefined): JsonObject | undefined {
  const mcp = payload?.mcp
  return isObject(mcp) && isObject(mcp.message) ? mcp.message : undefined
}
