// The shapes the A2A gateway checks, read strictly at its edge. A field Warden checks (or
// that a peer would read as text, a URL or a task id) must have the type Warden expects, or
// the call is refused naming the field: a push-notification URL given as an array, a part
// whose text is a number, metadata that is not an object. Official A2A peers turn such
// values back into strings, so a check that skipped them would be routed around. Field names
// with an underscore (`task_push_notification_config`) are refused too: peers read them as
// the camelCase field, which Warden would not see. Parts and answers are classified through
// the closed-world tables (tables.ts); an unknown part kind, file shape or answer kind is
// refused unless `a2a.allowUnknownTypes` lets it through.

import type { Json, JsonObject } from '../../core/index.js'
import { classifyItem, type ItemTable, type UnknownTypePolicy } from '../kit/index.js'
import type { A2aOperation } from './methods.js'
import { isObject, responseKind } from './payload.js'
import { A2A_EVENT_TABLE, A2A_FILE_TABLE, A2A_PART_TABLE } from './tables.js'

/** What a shape check found: the keys let through, or why the call is refused. */
export type ShapeVerdict = { ok: true; letThrough: string[] } | { ok: false; reason: string }

class ShapeProblem extends Error {}

const PART_FIELDS = new Set(['metadata', 'filename', 'mediaType'])
const V1_CONTENTS = ['text', 'raw', 'url', 'data']

/** Walks one request or answer, refusing at the first field of the wrong type. */
class Walk {
  readonly letThrough: string[] = []

  constructor(private readonly policy: UnknownTypePolicy) {}

  fail(path: string, expected: string, value: unknown): never {
    throw new ShapeProblem(`${path} must be ${expected} (got ${describe(value)})`)
  }

  object(value: unknown, path: string): JsonObject {
    if (!isObject(value)) this.fail(path, 'an object', value)
    for (const key of Object.keys(value)) {
      if (key.includes('_')) {
        throw new ShapeProblem(
          `${path}.${shown(key)} is not an A2A JSON field name; send it in camelCase (Warden checks fields by their JSON names)`,
        )
      }
    }
    return value
  }

  string(holder: JsonObject, key: string, path: string): void {
    const value = holder[key]
    if (value !== undefined && typeof value !== 'string') this.fail(`${path}.${key}`, 'a string', value)
  }

  strings(holder: JsonObject, key: string, path: string): void {
    const value = holder[key]
    if (value === undefined) return
    if (!Array.isArray(value)) this.fail(`${path}.${key}`, 'a list of strings', value)
    value.forEach((item, index) => {
      if (typeof item !== 'string') this.fail(`${path}.${key}[${index}]`, 'a string', item)
    })
  }

  metadata(holder: JsonObject, path: string): void {
    const value = holder.metadata
    if (value !== undefined && value !== null && !isObject(value))
      this.fail(`${path}.metadata`, 'an object', value)
  }

  classify(table: ItemTable, type: unknown, path: string): 'known' | 'let-through' {
    const verdict = classifyItem(table, type, this.policy)
    if (verdict.kind === 'refused') throw new ShapeProblem(`${path}: ${verdict.reason}`)
    if (verdict.kind === 'let-through') {
      this.letThrough.push(verdict.key)
      return 'let-through'
    }
    return 'known'
  }

  parts(holder: JsonObject, path: string): void {
    const parts = holder.parts
    if (!Array.isArray(parts)) this.fail(`${path}.parts`, 'a list of parts', parts)
    for (const [index, part] of parts.entries()) this.part(part, `${path}.parts[${index}]`)
  }

  part(value: unknown, path: string): void {
    const part = this.object(value, path)
    this.metadata(part, path)
    if (part.kind !== undefined) {
      this.v03Part(part, path)
      return
    }
    this.string(part, 'filename', path)
    this.string(part, 'mediaType', path)
    const contents = Object.keys(part).filter((key) => !PART_FIELDS.has(key))
    if (contents.length > 1) {
      throw new ShapeProblem(
        `${path} has several contents (${contents.map(shown).join(', ')}); a part carries one`,
      )
    }
    const type = contents[0]
    if (this.classify(A2A_PART_TABLE, type, path) === 'let-through' || type === 'data') return
    if (type === undefined || !V1_CONTENTS.includes(type)) {
      throw new ShapeProblem(
        `${path} has ${shown(String(type))} but no kind; a part without kind carries text, raw, url or data`,
      )
    }
    this.string(part, type, path)
  }

  v03Part(part: JsonObject, path: string): void {
    if (this.classify(A2A_PART_TABLE, part.kind, `${path}.kind`) === 'let-through') return
    if (part.kind === 'text') {
      if (typeof part.text !== 'string') this.fail(`${path}.text`, 'a string', part.text)
    } else if (part.kind === 'file') {
      const file = this.object(part.file, `${path}.file`)
      this.string(file, 'name', `${path}.file`)
      this.string(file, 'mimeType', `${path}.file`)
      const shapes = Object.keys(file).filter((key) => key !== 'name' && key !== 'mimeType')
      if (shapes.length > 1)
        throw new ShapeProblem(`${path}.file has both ${shapes.map(shown).join(' and ')}`)
      if (this.classify(A2A_FILE_TABLE, shapes[0], `${path}.file`) === 'known') {
        this.string(file, shapes[0] as string, `${path}.file`)
      }
    } else if (part.kind === 'data' && !isObject(part.data)) {
      this.fail(`${path}.data`, 'an object', part.data)
    } else if (part.kind !== 'data' && part.kind !== 'text' && part.kind !== 'file') {
      this.fail(`${path}.kind`, 'text, file or data', part.kind)
    }
  }

  message(value: unknown, path: string): void {
    const message = this.object(value, path)
    for (const key of ['messageId', 'contextId', 'taskId', 'role', 'kind']) this.string(message, key, path)
    this.strings(message, 'referenceTaskIds', path)
    this.strings(message, 'extensions', path)
    this.metadata(message, path)
    this.parts(message, path)
  }

  pushConfig(value: unknown, path: string): void {
    const config = this.object(value, path)
    for (const key of ['url', 'token', 'id', 'taskId', 'tenant']) this.string(config, key, path)
    if (config.authentication !== undefined) this.object(config.authentication, `${path}.authentication`)
    if (isObject(config.pushNotificationConfig))
      this.pushConfig(config.pushNotificationConfig, `${path}.pushNotificationConfig`)
    else if (config.pushNotificationConfig !== undefined)
      this.fail(`${path}.pushNotificationConfig`, 'an object', config.pushNotificationConfig)
  }

  request(operation: A2aOperation, raw: JsonObject): void {
    const params = this.object(raw, 'params')
    for (const key of ['tenant', 'id', 'taskId', 'contextId', 'pushNotificationConfigId'])
      this.string(params, key, 'params')
    this.metadata(params, 'params')
    const history = params.historyLength
    if (history !== undefined && typeof history !== 'number' && !/^\d{1,9}$/.test(String(history)))
      this.fail('params.historyLength', 'a number', history)
    if (params.message !== undefined) this.message(params.message, 'params.message')
    else if (operation === 'send' || operation === 'stream')
      this.fail('params.message', 'an object', undefined)
    if (params.configuration !== undefined) {
      const configuration = this.object(params.configuration, 'params.configuration')
      this.strings(configuration, 'acceptedOutputModes', 'params.configuration')
      for (const key of ['pushNotificationConfig', 'taskPushNotificationConfig']) {
        if (configuration[key] !== undefined)
          this.pushConfig(configuration[key], `params.configuration.${key}`)
      }
    }
    if (operation === 'pushConfig.set') this.pushConfig(params, 'params')
  }

  task(value: unknown, path: string): void {
    const task = this.object(value, path)
    this.string(task, 'id', path)
    this.string(task, 'contextId', path)
    this.metadata(task, path)
    if (task.status !== undefined) this.status(task.status, `${path}.status`)
    for (const key of ['history', 'artifacts'] as const) {
      const list = task[key]
      if (list === undefined) continue
      if (!Array.isArray(list)) this.fail(`${path}.${key}`, 'a list', list)
      for (const [index, item] of list.entries()) {
        if (key === 'history') this.message(item, `${path}.history[${index}]`)
        else this.artifact(item, `${path}.artifacts[${index}]`)
      }
    }
  }

  status(value: unknown, path: string): void {
    const status = this.object(value, path)
    this.string(status, 'state', path)
    if (status.message !== undefined && status.message !== null)
      this.message(status.message, `${path}.message`)
  }

  artifact(value: unknown, path: string): void {
    const artifact = this.object(value, path)
    this.string(artifact, 'artifactId', path)
    this.string(artifact, 'name', path)
    this.string(artifact, 'description', path)
    this.metadata(artifact, path)
    this.parts(artifact, path)
  }

  /** An answer (or streamed event) that must be a task, message or update. */
  event(value: Json, path: string): void {
    const { kind, inner } = responseKind(value)
    if (kind === 'result' || !inner) {
      if (this.classify(A2A_EVENT_TABLE, answerType(value), path) === 'let-through') return
      throw new ShapeProblem(`${path} is not a task, message or update`)
    }
    this.string(inner, 'taskId', path)
    if (kind === 'task') this.task(inner, path)
    else if (kind === 'message') this.message(inner, path)
    else if (kind === 'statusUpdate') this.status(inner.status, `${path}.status`)
    else this.artifact(inner.artifact, `${path}.artifact`)
  }
}

/** The type an answer names: its v0.3 `kind`, or its one field (the current spec's wrapper). */
function answerType(value: Json): unknown {
  if (!isObject(value)) return undefined
  if (value.kind !== undefined) return value.kind
  const keys = Object.keys(value)
  return keys.length === 1 ? keys[0] : undefined
}

function run(policy: UnknownTypePolicy, walk: (w: Walk) => void): ShapeVerdict {
  const walker = new Walk(policy)
  try {
    walk(walker)
  } catch (error) {
    if (error instanceof ShapeProblem) return { ok: false, reason: error.message }
    throw error
  }
  return { ok: true, letThrough: walker.letThrough }
}

/** Checks the fields and parts of a request's params. */
export function requestShape(
  operation: A2aOperation,
  params: JsonObject,
  policy: UnknownTypePolicy,
): ShapeVerdict {
  return run(policy, (walk) => walk.request(operation, params))
}

/**
 * Checks an answer of `operation` (`streamed`: one event of a stream): sends, gets, cancels
 * and streams answer tasks, messages and updates; ListTasks a list of tasks; the other
 * operations' answers carry no parts and are passed to the hooks as they are.
 */
export function answerShape(operation: A2aOperation, value: Json, policy: UnknownTypePolicy): ShapeVerdict {
  return run(policy, (walk) => {
    if (['send', 'stream', 'get', 'cancel', 'resubscribe'].includes(operation))
      return walk.event(value, 'result')
    if (operation !== 'list') return
    const tasks = walk.object(value, 'result').tasks
    if (!Array.isArray(tasks)) return walk.fail('result.tasks', 'a list of tasks', tasks)
    for (const [index, task] of tasks.entries()) walk.task(task, `result.tasks[${index}]`)
  })
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

function shown(text: string): string {
  return (text.length > 64 ? `${text.slice(0, 64)}…` : text).replace(/[^\x20-\x7e]/g, '?')
}
