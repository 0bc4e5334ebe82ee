// Warden inside the OpenAI Agents SDK (`@openai/agents`): input and output guardrails
// (`user.message`, `agent.response`), tool input and output guardrails (`tool.pre`,
// `tool.post`), a `callModelInputFilter` (`model.pre`, whose added context reaches the
// model as a `<system-reminder>`), and run hooks that report tools, handoffs and agent
// output for audit. A deny trips the guardrail with Warden's reason; a rewrite the SDK
// cannot apply is refused with a message that says so.

import type {
  CallModelInputFilter,
  InputGuardrail,
  OutputGuardrail,
  Runner,
  ToolInputGuardrailDefinition,
  ToolOutputGuardrailDefinition,
} from '@openai/agents'
import type { Decision, EventContext, JsonObject } from '../../core/index.js'
import { type BackendOptions, crashed, settle, toSend, type WardenSource } from '../backend.js'
import {
  asInput,
  contextReminder,
  modifiedText,
  modifiedToolInput,
  modifiedToolOutput,
  toJson,
} from '../decisions.js'

/** Options of {@link wardenGuardrails}. */
export interface OpenAiAgentsOptions extends BackendOptions {
  /** Context merged into every event (tenantId, agent, session). */
  context?: EventContext
}

/** What {@link wardenGuardrails} returns: spread the parts into the Agent and the run config. */
export interface WardenAgentsKit {
  /** For `new Agent({ inputGuardrails })` (or the run config): checks the input with `user.message`. */
  inputGuardrail: InputGuardrail
  /** For `outputGuardrails`: checks the final output with `agent.response`. */
  outputGuardrail: OutputGuardrail
  /** For a tool's `inputGuardrails`: `tool.pre`. */
  toolInputGuardrail: ToolInputGuardrailDefinition
  /** For a tool's `outputGuardrails`: `tool.post`; a modify replaces the output the model sees. */
  toolOutputGuardrail: ToolOutputGuardrailDefinition
  /** For `run(agent, input, { callModelInputFilter })`: `model.pre` before every model call. */
  callModelInputFilter: CallModelInputFilter
  /** Reports handoffs, tool results and agent output from a Runner's run hooks, for audit. */
  attach(runner: Pick<Runner, 'on'>): void
}

/** Builds the guardrails, the model input filter and the run hook reporter. */
export function wardenGuardrails(source: WardenSource, options: OpenAiAgentsOptions = {}): WardenAgentsKit {
  const send = toSend(source, options)
  const contextFor = (agent?: { name?: string }, reportedBy?: string): EventContext => {
    const context: EventContext =
      agent?.name && !options.context?.agent
        ? { ...options.context, agent: { name: agent.name } }
        : { ...options.context }
    if (reportedBy) context.reportedBy = reportedBy
    return context
  }
  // Fail-closed as toBackend's backend is: a throw, a rejection or a non-decision is a deny.
  const dispatch = async (
    event: string,
    payload: JsonObject,
    agent?: { name?: string },
    reportedBy?: string,
  ): Promise<Decision> => {
    try {
      return settle(await send({ event, payload, context: contextFor(agent, reportedBy) }), event)
    } catch (error) {
      return crashed(event, error)
    }
  }

  const inputGuardrail: InputGuardrail = {
    name: 'warden-input',
    runInParallel: false,
    async execute({ input, agent }) {
      const text = typeof input === 'string' ? input : lastUserText(input)
      const decision = await dispatch(
        'user.message',
        { message: { role: 'user', text, content: toJson(input) } },
        agent,
      )
      if (decision.decision === 'deny') return trip(decision.reason)
      if (modifiedText(decision) !== undefined) {
        return trip(
          `Warden rewrote the input, and an input guardrail cannot change it, so it is refused: ${decision.reason}`,
        )
      }
      return { tripwireTriggered: false, outputInfo: { decisionId: decision.id } }
    },
  }

  const outputGuardrail: OutputGuardrail = {
    name: 'warden-output',
    async execute({ agentOutput, agent }) {
      const text = typeof agentOutput === 'string' ? agentOutput : JSON.stringify(agentOutput)
      const decision = await dispatch('agent.response', { message: { role: 'agent', text } }, agent)
      if (decision.decision === 'deny') return trip(decision.reason)
      if (modifiedText(decision) !== undefined) {
        return trip(
          `Warden rewrote the answer, and an output guardrail cannot change it, so it is refused: ${decision.reason}`,
        )
      }
      return { tripwireTriggered: false, outputInfo: { decisionId: decision.id } }
    },
  }

  const toolInputGuardrail: ToolInputGuardrailDefinition = {
    type: 'tool_input',
    name: 'warden-tool-input',
    async run({ toolCall, agent }) {
      const tool = { name: toolCall.name, input: asInput(toolCall.arguments), id: toolCall.callId }
      const decision = await dispatch('tool.pre', { tool }, agent)
      if (decision.decision === 'deny')
        return reject(`Warden blocked the tool call ${toolCall.name}: ${decision.reason}`)
      const input = modifiedToolInput(decision)
      if (input) {
        return reject(
          `Warden would rewrite the input of ${toolCall.name} to ${JSON.stringify(input)}, and the OpenAI Agents SDK does not let a guardrail change tool input, so the call was refused`,
        )
      }
      return { behavior: { type: 'allow' }, outputInfo: { decisionId: decision.id } }
    },
  }

  const toolOutputGuardrail: ToolOutputGuardrailDefinition = {
    type: 'tool_output',
    name: 'warden-tool-output',
    async run({ toolCall, agent, output }) {
      const tool = {
        name: toolCall.name,
        input: asInput(toolCall.arguments),
        id: toolCall.callId,
        output: toJson(output),
      }
      const decision = await dispatch('tool.post', { tool }, agent)
      if (decision.decision === 'deny')
        return reject(`Warden withheld the result of ${toolCall.name}: ${decision.reason}`)
      const rewritten = modifiedToolOutput(decision)
      if (rewritten) {
        const text =
          typeof rewritten.output === 'string' ? rewritten.output : JSON.stringify(rewritten.output)
        return reject(text)
      }
      return { behavior: { type: 'allow' }, outputInfo: { decisionId: decision.id } }
    },
  }

  const filter: CallModelInputFilter = async ({ modelData, agent }) => {
    const decision = await dispatch(
      'model.pre',
      { model: { messages: toJson(modelData.input) as JsonObject[] } },
      agent,
    )
    if (decision.decision === 'deny') throw new Error(`Warden blocked the model call: ${decision.reason}`)
    let input = modelData.input
    const model = decision.payload?.model
    if (
      decision.decision === 'modify' &&
      model &&
      typeof model === 'object' &&
      !Array.isArray(model) &&
      Array.isArray(model.messages)
    ) {
      input = model.messages as unknown as typeof input
    }
    const reminder = contextReminder(decision)
    if (!reminder) return input === modelData.input ? modelData : { ...modelData, input }
    return {
      input,
      instructions: modelData.instructions ? `${modelData.instructions}\n\n${reminder}` : reminder,
    }
  }
  // The filter never changes the items it is given (Warden gets a JSON copy; a modify hands
  // back new items), so the SDK may skip deep-copying every item before each model call.
  const callModelInputFilter: CallModelInputFilter = Object.assign(filter, { preserveInputIdentity: true })

  return {
    inputGuardrail,
    outputGuardrail,
    toolInputGuardrail,
    toolOutputGuardrail,
    callModelInputFilter,
    attach(runner) {
      const report = (event: string, payload: JsonObject, agent?: { name?: string }) => {
        void dispatch(event, payload, agent, 'run-hooks')
      }
      const delegated = new Set<unknown>()
      runner.on('agent_handoff', (_context, from, to) => {
        delegated.add(to)
        report('subagent.start', { subagent: { name: to.name, task: { from: from.name } } }, from)
      })
      runner.on('agent_tool_end', (_context, agent, tool, result, details) => {
        const call = details.toolCall as { arguments?: string; callId?: string }
        report(
          'custom.openai.toolEnd',
          { tool: { name: tool.name, input: asInput(call.arguments), output: result } },
          agent,
        )
      })
      runner.on('agent_end', (_context, agent, output) => {
        report('model.post', { model: { response: output, name: agent.name } }, agent)
        if (delegated.delete(agent))
          report('subagent.stop', { subagent: { name: agent.name, result: output } }, agent)
      })
    },
  }
}

function trip(reason: string) {
  return { tripwireTriggered: true, outputInfo: { reason } }
}

function reject(message: string) {
  return { behavior: { type: 'rejectContent' as const, message } }
}

function lastUserText(items: unknown[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as { role?: string; content?: unknown }
    if (item?.role !== 'user') continue
    if (typeof item.content === 'string') return item.content
    if (Array.isArray(item.content)) {
      return item.content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('')
    }
  }
  return ''
}
