// The handler part of the hook form, as data: one draft holding every handler type's fields
// (so switching the type loses nothing typed), read from a stored handler config, written
// back as one with the problems found, and the props and input bindings each sub-form uses.

import { described, inputValue } from './form-field'

/** What the server shows a stored secret as; sent back unchanged, it keeps the secret. */
export const MASK = '********'

/** Handler types the form has fields for, in the order the type list shows them. */
export const FORM_TYPES = ['script', 'http', 'prompt', 'command', 'guardian', 'deny', 'allow', 'ask']

/** Handler types that cannot be made through the form at all. */
export const HIDDEN_TYPES = ['fn', 'guardians', 'profile-action']

/** What each type's option says beside its name. */
export const TYPE_LABELS: Record<string, string> = {
  script: 'script: Starlark code',
  http: 'http: a webhook',
  prompt: 'prompt: an LLM judge',
  command: 'command: a program on the server',
  guardian: 'guardian: a remote AOS guardian',
  deny: 'deny: always deny',
  allow: 'allow: always allow',
  ask: 'ask: a human approves',
}

/** The config fields each type's sub-form edits (others are kept as loaded). */
const MANAGED: Record<string, string[]> = {
  command: ['command', 'args', 'env', 'shell', 'cwd'],
  http: ['url', 'headers', 'secretHeaders'],
  prompt: ['prompt', 'model', 'maxTokens'],
  script: ['source', 'when'],
  guardian: ['url', 'headers'],
  deny: ['reason'],
  allow: ['reason'],
  ask: ['reason'],
}

/** The error key of a handler config field, for the current type (`handler` when it has no field here). */
export function handlerErrorKey(type: string, field: string | undefined): string {
  if (!field) return 'handler'
  if (field === 'type') return 'handler.type'
  const managed = MANAGED[type]
  if (!managed) return 'handler.json'
  const own = field === 'secretHeaders' ? 'headers' : field
  return managed.includes(own) ? `handler.${own}` : 'handler'
}

export const SCRIPT_TEMPLATE = `def handle(event, payload):
    # Return allow(), block("reason"), ask("reason") or modify(new_payload).
    return allow()
`

export interface HeaderRow {
  key: number
  name: string
  value: string
  /** Kept in `secretHeaders` (where it was loaded from). */
  secret: boolean
  /** The name a masked value was loaded under: renaming the header loses the stored secret. */
  maskedAs?: string
}

export interface HandlerDraft {
  type: string
  command: string
  args: string
  env: string
  shell: boolean
  cwd: string
  url: string
  headers: HeaderRow[]
  prompt: string
  model: string
  maxTokens: string
  source: string
  when: string
  reason: string
  /** The config of a type the form has no fields for, as JSON. */
  json: string
  /** The config as loaded (edit mode): fields the form does not show are kept. */
  loaded?: Record<string, unknown>
}

let rowKeys = 0

export function headerRow(name = '', value = '', secret = false): HeaderRow {
  const row: HeaderRow = { key: ++rowKeys, name, value, secret }
  if (value === MASK) row.maskedAs = name
  return row
}

export function emptyHandler(type: string): HandlerDraft {
  return {
    type,
    command: '',
    args: '',
    env: '',
    shell: false,
    cwd: '',
    url: '',
    headers: [],
    prompt: '',
    model: '',
    maxTokens: '',
    source: SCRIPT_TEMPLATE,
    when: '',
    reason: '',
    json: '{}',
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '')

function stringMap(value: unknown): [string, string][] {
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])
}

/** The draft of a stored handler config (as the server shows it, secrets masked). */
export function handlerDraft(config: Record<string, unknown>): HandlerDraft {
  const type = text(config.type)
  const draft = emptyHandler(type)
  draft.loaded = config
  draft.command = text(config.command)
  draft.args = Array.isArray(config.args) ? config.args.map(String).join('\n') : ''
  draft.env = Array.isArray(config.env) ? config.env.map(String).join(', ') : ''
  draft.shell = config.shell === true
  draft.cwd = text(config.cwd)
  draft.url = text(config.url)
  draft.headers = [
    ...stringMap(config.headers).map(([k, v]) => headerRow(k, v)),
    ...stringMap(config.secretHeaders).map(([k, v]) => headerRow(k, v, true)),
  ]
  draft.prompt = text(config.prompt)
  draft.model = text(config.model)
  draft.maxTokens = typeof config.maxTokens === 'number' ? String(config.maxTokens) : ''
  draft.source = type === 'script' ? text(config.source) : SCRIPT_TEMPLATE
  draft.when = text(config.when)
  draft.reason = text(config.reason)
  const { type: _type, ...rest } = config
  draft.json = JSON.stringify(rest, null, 2)
  return draft
}

/** The line a script's first line has in its file (`line:` in a config from a hook file). */
export function scriptLineOffset(draft: HandlerDraft): number {
  const line = draft.loaded?.type === 'script' ? draft.loaded.line : undefined
  return typeof line === 'number' && line > 1 ? line - 1 : 0
}

export type Errors = Record<string, string>

/** The headers as the config's maps, or the problems found. */
function headerMaps(rows: HeaderRow[], errors: Errors, allowSecretMap: boolean) {
  const headers: Record<string, string> = {}
  const secretHeaders: Record<string, string> = {}
  const seen = new Set<string>()
  rows.forEach((row, i) => {
    const name = row.name.trim()
    if (!name && !row.value) return
    const at = `header ${i + 1}`
    if (!name) errors['handler.headers'] ??= `${at} needs a name`
    else if (seen.has(name.toLowerCase())) errors['handler.headers'] ??= `${at}: "${name}" is set twice`
    else if (row.value === MASK && row.maskedAs !== undefined && row.maskedAs !== name)
      errors['handler.headers'] ??=
        `${at}: the stored secret belongs to "${row.maskedAs}"; type the value of "${name}" again`
    seen.add(name.toLowerCase())
    if (row.secret && allowSecretMap) secretHeaders[name] = row.value
    else headers[name] = row.value
  })
  return { headers, secretHeaders }
}

const lines = (value: string) => value.split('\n').filter((line) => line !== '')
const list = (value: string) => value.split(/[\s,]+/).filter(Boolean)

/** The handler config of a draft (empty optional fields left out), with the problems found. */
export function buildHandler(draft: HandlerDraft): { handler: Record<string, unknown>; errors: Errors } {
  const errors: Errors = {}
  const type = draft.type
  const managed = MANAGED[type]
  const handler: Record<string, unknown> = {}
  // Fields the form does not edit stay as they were (same type only).
  if (managed && draft.loaded?.type === type) {
    for (const [key, value] of Object.entries(draft.loaded)) if (!managed.includes(key)) handler[key] = value
  }
  handler.type = type
  const required = (key: keyof HandlerDraft & string, value: string, what: string) => {
    if (value.trim() === '') errors[`handler.${key}`] = `is required: ${what}`
    else handler[key] = value
  }
  switch (type) {
    case 'command': {
      required('command', draft.command.trim(), 'the program to run, e.g. ./hooks/check.sh')
      const args = lines(draft.args)
      if (args.length) handler.args = args
      const env = list(draft.env)
      if (env.length) handler.env = env
      if (draft.shell) handler.shell = true
      if (draft.cwd.trim()) handler.cwd = draft.cwd.trim()
      break
    }
    case 'http':
    case 'guardian': {
      required('url', draft.url.trim(), 'the URL, e.g. https://hooks.example.com/warden')
      const { headers, secretHeaders } = headerMaps(draft.headers, errors, type === 'http')
      if (Object.keys(headers).length) handler.headers = headers
      if (Object.keys(secretHeaders).length) handler.secretHeaders = secretHeaders
      break
    }
    case 'prompt': {
      required('prompt', draft.prompt, 'the policy the judge applies')
      if (draft.model.trim()) handler.model = draft.model.trim()
      const max = draft.maxTokens.trim()
      if (max) {
        const n = Number(max)
        if (!Number.isInteger(n) || n <= 0) errors['handler.maxTokens'] = 'must be a whole number above 0'
        else handler.maxTokens = n
      }
      break
    }
    case 'script':
      required('source', draft.source, 'Starlark code that defines handle(event, payload)')
      if (draft.when.trim()) handler.when = draft.when.trim()
      break
    case 'deny':
    case 'allow':
    case 'ask':
      if (draft.reason.trim()) handler.reason = draft.reason.trim()
      break
    default: {
      let parsed: unknown
      try {
        parsed = JSON.parse(draft.json || '{}')
      } catch (error) {
        errors['handler.json'] = `is not valid JSON: ${(error as Error).message}`
        break
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        errors['handler.json'] = 'must be a JSON object'
      else Object.assign(handler, parsed, { type })
    }
  }
  return { handler, errors }
}

/** What every handler sub-form takes. */
export interface HandlerFieldsProps {
  draft: HandlerDraft
  onChange: (patch: Partial<HandlerDraft>) => void
  errors: Errors
  /** The script line a server error named. */
  errorLine?: number | undefined
}

/** The props of an input bound to a one-line text field of the draft, with its ARIA attributes. */
export function draftInput(
  { draft, onChange, errors }: HandlerFieldsProps,
  key: 'command' | 'cwd' | 'url' | 'model' | 'reason' | 'when',
  id: string,
) {
  return {
    id,
    value: draft[key],
    onInput: (e: Event) => onChange({ [key]: inputValue(e) }),
    ...described(id, errors[`handler.${key}`], true),
  }
}
