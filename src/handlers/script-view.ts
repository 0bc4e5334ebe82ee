// Payload views for Starlark hooks, as AI Harness gives them: tool.pre `{name, args}`,
// tool.post `{name, args, result, error}`, model.pre `{messages}`, every other event its
// canonical payload. A `modify(payload)` written in the view is mapped back onto the
// canonical payload here, so the rest of Warden only ever sees canonical events.

import { AsyncLocalStorage } from 'node:async_hooks'
import type { CheckedEvent, HookSpec, Json, JsonObject } from '../core/index.js'

/** The payload a script sees for an event. */
export function payloadView(event: CheckedEvent): JsonObject {
  const payload = event.payload
  switch (event.event) {
    case 'tool.pre': {
      const tool = record(payload.tool)
      return { name: tool?.name ?? '', args: tool?.input ?? {} }
    }
    case 'tool.post': {
      const tool = record(payload.tool)
      const failed = tool?.isError === true
      return {
        name: tool?.name ?? '',
        args: tool?.input ?? {},
        result: failed ? null : (tool?.output ?? null),
        error: failed ? errorText(tool?.output) : null,
      }
    }
    case 'model.pre': {
      const model = record(payload.model)
      return { messages: model?.messages ?? [] }
    }
    default:
      return payload
  }
}

/**
 * Maps a payload a script passed to `modify` (in the event's view) back onto the canonical
 * payload.
 * @throws Error naming the field that does not fit the view.
 */
export function fromPayloadView(event: CheckedEvent, view: unknown): JsonObject {
  const edited = record(view)
  if (!edited) throw new Error('modify(payload) needs a dict')
  const payload = event.payload
  switch (event.event) {
    case 'tool.pre':
    case 'tool.post': {
      const tool = record(payload.tool) ?? {}
      const next: JsonObject = { ...tool }
      if (edited.name !== undefined) {
        if (typeof edited.name !== 'string' || edited.name === '')
          throw new Error('modify(payload): "name" must be a non-empty string')
        next.name = edited.name
      }
      if (edited.args !== undefined) {
        const args = record(edited.args)
        if (!args) throw new Error('modify(payload): "args" must be a dict')
        next.input = args
      }
      if (event.event === 'tool.post') applyResult(next, edited)
      return { ...payload, tool: next }
    }
    case 'model.pre': {
      if (!Array.isArray(edited.messages)) throw new Error('modify(payload): "messages" must be a list')
      const model = record(payload.model) ?? {}
      return { ...payload, model: { ...model, messages: edited.messages } }
    }
    default:
      return edited
  }
}

function applyResult(tool: JsonObject, edited: JsonObject): void {
  const error = edited.error
  if (error !== undefined && error !== null && error !== false && error !== '') {
    tool.isError = true
    tool.output = typeof error === 'string' ? error : JSON.stringify(error)
    return
  }
  if (error === null || error === false || error === '') tool.isError = false
  if (edited.result !== undefined) tool.output = edited.result
}

function errorText(output: Json | undefined): string {
  if (typeof output === 'string' && output !== '') return output
  if (output === undefined || output === null) return 'the tool failed'
  return JSON.stringify(output)
}

function record(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined
}

/** At most this many hooks are listed to a script, each string cut at MAX_VIEW_CHARS. */
export const MAX_LISTED_HOOKS = 1000
const MAX_VIEW_CHARS = 2000

/** Whose view of the hooks a run is limited to (a caller of the management API). */
export interface HooksViewer {
  /** The caller's tenant: only that tenant's hooks are listed (global hooks are hidden from it). */
  tenant: string
}

const viewer = new AsyncLocalStorage<HooksViewer>()

/**
 * Runs `work` with the hooks a script lists limited to what `who` may see through the
 * management API (a tenant sees its own hooks only), e.g. for a tenant editor's
 * `hooks.test`: a script never learns through `hooks.list()` what its caller could not read.
 */
export function withHooksViewer<T>(who: HooksViewer | undefined, work: () => T): T {
  return who === undefined ? work() : viewer.run(who, work)
}

/** The tenant whose hooks alone a run under {@link withHooksViewer} may list (undefined: no viewer). */
export function hooksViewerTenant(): string | undefined {
  return viewer.getStore()?.tenant
}

/**
 * The loaded hooks a script may read (`hooks.list()`, AI Harness's meta-policy view): the
 * global hooks and those of the caller's tenant, in run order, as fresh copies. Only what a
 * policy reasons about is shown (name, event, priority, matcher, condition, description,
 * source file name, enabled, mode, handler type, tenant); no handler settings, so no URL,
 * header, secret or script text of another hook reaches the script. Under
 * {@link withHooksViewer}, only the viewer's own tenant's hooks are listed.
 */
export function loadedHooksView(
  hooks: readonly HookSpec[],
  tenant: string,
  only: string | undefined = hooksViewerTenant(),
): JsonObject[] {
  const listed: JsonObject[] = []
  for (const hook of hooks) {
    const owner = hook.scope.tenant ?? ''
    if (owner !== '' && owner !== tenant) continue
    if (only !== undefined && owner !== only) continue
    if (listed.length >= MAX_LISTED_HOOKS) break
    const view: JsonObject = {
      name: cut(hook.name),
      event: hook.event,
      priority: hook.priority,
      enabled: hook.enabled,
      mode: hook.mode ?? 'enforce',
      handler: hook.handler.type,
      tenant: owner === '' ? null : owner,
      matcher: hook.matcher === undefined ? null : cut(hook.matcher),
      if: hook.if === undefined ? null : cut(hook.if),
      description: hook.description === undefined ? null : cut(hook.description),
      source: hook.source === undefined ? null : cut(baseName(hook.source)),
      // The hook file as written (AI Harness): a key it does not declare is absent here.
      file: hook.frontMatter === undefined ? null : (capped(hook.frontMatter) as JsonObject),
    }
    listed.push(view)
  }
  return listed
}

/** A front matter within the view's size bound (a huge one is cut to its keys). */
function capped(frontMatter: Record<string, unknown>): Record<string, unknown> {
  if (JSON.stringify(frontMatter).length <= MAX_VIEW_CHARS * 4) return frontMatter
  return Object.fromEntries(Object.keys(frontMatter).map((key) => [key, null]))
}

function cut(text: string): string {
  return text.length > MAX_VIEW_CHARS ? text.slice(0, MAX_VIEW_CHARS) : text
}

/** The last part of a file path (a script learns which file a hook came from, not where the host keeps it). */
function baseName(source: string): string {
  const at = Math.max(source.lastIndexOf('/'), source.lastIndexOf('\\'))
  return at >= 0 ? source.slice(at + 1) : source
}
