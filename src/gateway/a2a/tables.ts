// The closed world of `warden a2a`: every A2A method (JSON-RPC names and HTTP+JSON routes),
// message and artifact part kind, file shape and streamed event kind the gateway knows, and
// what it does with each. Anything not in a table is refused naming it, unless the operator
// lets that named type through with `a2a.allowUnknownTypes` (methods and routes excepted: the
// gateway can only forward a call it maps to an operation).

import { type ItemRule, type ItemTable, type UnknownTypePolicy, unknownTypePolicy } from '../kit/index.js'
import { A2A_JSONRPC_METHODS, methodInfo } from './methods.js'

/** The setting that lets named unknown types through. */
export const A2A_UNKNOWN_SETTING = 'a2a.allowUnknownTypes'

/** The protocol name of every A2A table (`a2a/part/image` is a setting key). */
export const A2A_PROTOCOL = 'a2a'

function methodRules(): Record<string, ItemRule> {
  const rules: Record<string, ItemRule> = {}
  for (const method of A2A_JSONRPC_METHODS) {
    const info = methodInfo(method)
    if (!info) continue
    const answer = info.streaming ? 'each streamed event as a2a.response' : 'its answer as a2a.response'
    rules[method] = {
      kind: 'checked',
      event: info.event,
      note:
        info.operation === 'extendedCard'
          ? 'the card it answers is checked as a2a.card'
          : `the request as ${info.event}, ${answer}`,
    }
  }
  return rules
}

/** JSON-RPC methods, in the current spec's and the v0.3 spelling. */
export const A2A_METHOD_TABLE: ItemTable = {
  protocol: A2A_PROTOCOL,
  place: 'JSON-RPC method',
  key: 'method',
  rules: methodRules(),
}

const route = (event: string, note: string): ItemRule => ({ kind: 'checked', event, note })

/** HTTP+JSON routes (also under `/v1` and under a `/{tenant}` prefix, which must be the caller's). */
export const A2A_ROUTE_TABLE: ItemTable = {
  protocol: A2A_PROTOCOL,
  place: 'HTTP+JSON route',
  key: 'route',
  rules: {
    'POST /message:send': route('a2a.send', 'as SendMessage'),
    'POST /message:stream': route('a2a.stream', 'as SendStreamingMessage'),
    'GET /tasks': route('a2a.list', "as ListTasks; only the caller's tenant's tasks are answered"),
    'GET /tasks/{id}': route('a2a.get', 'as GetTask'),
    'POST /tasks/{id}:cancel': route('a2a.cancel', 'as CancelTask'),
    'GET|POST /tasks/{id}:subscribe': route('a2a.resubscribe', 'as SubscribeToTask'),
    'POST /tasks/{id}/pushNotificationConfigs': route(
      'a2a.pushConfig.set',
      'as CreateTaskPushNotificationConfig',
    ),
    'GET /tasks/{id}/pushNotificationConfigs': route(
      'a2a.pushConfig.list',
      'as ListTaskPushNotificationConfigs',
    ),
    'GET /tasks/{id}/pushNotificationConfigs/{configId}': route(
      'a2a.pushConfig.get',
      'as GetTaskPushNotificationConfig',
    ),
    'DELETE /tasks/{id}/pushNotificationConfigs/{configId}': route(
      'a2a.pushConfig.delete',
      'as DeleteTaskPushNotificationConfig',
    ),
    'GET /extendedAgentCard': route('a2a.card', 'as GetExtendedAgentCard'),
  },
}

/**
 * Part kinds of messages and artifacts: the v0.3 `kind` (`text`, `file`, `data`) and the
 * current spec's content field (`text`, `raw`, `url`, `data`). Every part is in the event
 * hooks see; these rules say what its content must be.
 */
export const A2A_PART_TABLE: ItemTable = {
  protocol: A2A_PROTOCOL,
  place: 'part',
  key: 'part',
  rules: {
    text: { kind: 'checked', event: 'a2a.send / a2a.response', note: 'text must be a string' },
    data: { kind: 'checked', event: 'a2a.send / a2a.response', note: 'structured data, seen whole by hooks' },
    file: {
      kind: 'checked',
      event: 'a2a.send / a2a.response',
      note: 'v0.3: file must be an object of a known file shape',
    },
    raw: { kind: 'checked', event: 'a2a.send / a2a.response', note: 'file bytes, base64 in a string' },
    url: { kind: 'checked', event: 'a2a.send / a2a.response', note: 'a file by URL, a string' },
  },
}

/** File shapes of a v0.3 `file` part. */
export const A2A_FILE_TABLE: ItemTable = {
  protocol: A2A_PROTOCOL,
  place: 'file shape',
  key: 'file',
  rules: {
    bytes: { kind: 'checked', event: 'a2a.send / a2a.response', note: 'base64 bytes, a string' },
    uri: { kind: 'checked', event: 'a2a.send / a2a.response', note: 'a file by URI, a string' },
  },
}

const streamed = (note: string): ItemRule => ({ kind: 'checked', event: 'a2a.response', note })

/** Answers and streamed events: the current spec's wrapper field and the v0.3 `kind`. */
export const A2A_EVENT_TABLE: ItemTable = {
  protocol: A2A_PROTOCOL,
  place: 'answer or streamed event',
  key: 'event',
  rules: {
    task: streamed('a task, its status message, history and artifacts'),
    message: streamed('a message and its parts'),
    statusUpdate: streamed('a status update and its message'),
    artifactUpdate: streamed('an artifact chunk (whole artifacts with stream.buffer: artifact)'),
    'status-update': streamed('v0.3 spelling of statusUpdate'),
    'artifact-update': streamed('v0.3 spelling of artifactUpdate'),
  },
}

/** Every table of the A2A gateway, for docs, settings and corpus tests. */
export const A2A_TABLES: readonly ItemTable[] = [
  A2A_METHOD_TABLE,
  A2A_ROUTE_TABLE,
  A2A_PART_TABLE,
  A2A_FILE_TABLE,
  A2A_EVENT_TABLE,
]

/**
 * The policy of `a2a.allowUnknownTypes` (keys `a2a/part/TYPE`, `a2a/file/TYPE`,
 * `a2a/event/TYPE`).
 * @throws Error naming an entry that is not a key of a part, file or event table.
 */
export function a2aUnknownTypePolicy(
  entries: readonly string[],
  onLetThrough?: UnknownTypePolicy['onLetThrough'],
): UnknownTypePolicy {
  for (const entry of entries) {
    if (entry.startsWith(`${A2A_PROTOCOL}/method/`) || entry.startsWith(`${A2A_PROTOCOL}/route/`)) {
      throw new Error(
        `${A2A_UNKNOWN_SETTING}: "${entry.slice(0, 80)}" cannot be let through: the gateway forwards only methods and routes it maps to an operation`,
      )
    }
  }
  return unknownTypePolicy(
    A2A_UNKNOWN_SETTING,
    entries,
    [A2A_PART_TABLE, A2A_FILE_TABLE, A2A_EVENT_TABLE],
    onLetThrough,
  )
}

function ruleText(rule: ItemRule): string {
  if (rule.kind === 'checked') return `checked as \`${rule.event}\`: ${rule.note}`
  return `${rule.kind}: ${rule.note}`
}

/**
 * Every table as Markdown, for docs/a2a-gateway.md (a test keeps the page equal to this): each
 * type and what happens to it, and what happens to a type not listed.
 */
export function a2aTablesMarkdown(): string {
  const sections = A2A_TABLES.map((table) => {
    const rows = Object.entries(table.rules).map(
      ([type, rule]) => `| \`${type.replace(/\|/g, '\\|')}\` | ${ruleText(rule)} |`,
    )
    const closed = table.key === 'method' || table.key === 'route'
    const other = closed
      ? 'refused naming it (a method or route cannot be let through: the gateway forwards only calls it maps)'
      : `refused naming it; \`${A2A_UNKNOWN_SETTING}: ["${A2A_PROTOCOL}/${table.key}/TYPE"]\` lets a named type through unchecked (logged, and named in the event as \`a2a.unchecked\`)`
    return [
      `#### ${table.place} (\`${A2A_PROTOCOL}/${table.key}/…\`)`,
      '',
      '| type | what happens |',
      '|---|---|',
      ...rows,
      `| any other | ${other} |`,
    ].join('\n')
  })
  return `${sections.join('\n\n')}\n`
}
