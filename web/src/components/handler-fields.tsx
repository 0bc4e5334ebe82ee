// The handler part of the hook form: one draft holding every handler type's fields (so
// switching the type loses nothing typed), read from a stored handler config, written back
// as one, and shown as the sub-form of the chosen type.

import { CodeEditor } from './code-editor'
import { described, Field, FieldError, inputValue } from './form-field'

/** What the server shows a stored secret as; sent back unchanged, it keeps the secret. */
export const MASK = '********'

/** Header names whose values are secrets (the server's own rule, store/sealing.ts). */
const SECRET_NAME =
  /(authorization|password|passwd|secret|token|api[-_]?key|cookie|credential|private[-_]?key)/i

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

/** The sub-form of the draft's handler type. */
export function HandlerFields({
  draft,
  onChange,
  errors,
  errorLine,
}: {
  draft: HandlerDraft
  onChange: (patch: Partial<HandlerDraft>) => void
  errors: Errors
  /** The script line a server error named. */
  errorLine?: number | undefined
}) {
  const input = (key: 'command' | 'cwd' | 'url' | 'model' | 'reason' | 'when', id: string) => ({
    id,
    value: draft[key],
    onInput: (e: Event) => onChange({ [key]: inputValue(e) }),
    ...described(id, errors[`handler.${key}`], true),
  })
  const general = errors.handler ? (
    <p id="handler-error" class="field-error form-wide" role="alert">
      {errors.handler}
    </p>
  ) : null

  switch (draft.type) {
    case 'command':
      return (
        <>
          {general}
          <Field
            id="handler-command"
            label="Command"
            wide
            error={errors['handler.command']}
            hint="The program and its arguments; shell operators need the shell option."
          >
            <input
              {...input('command', 'handler-command')}
              class="code-mono"
              spellcheck={false}
              autocomplete="off"
            />
          </Field>
          <Field
            id="handler-args"
            label="Arguments"
            error={errors['handler.args']}
            hint="One per line, passed as they are."
          >
            <textarea
              id="handler-args"
              rows={3}
              class="code-mono"
              spellcheck={false}
              value={draft.args}
              onInput={(e) => onChange({ args: inputValue(e) })}
              {...described('handler-args', errors['handler.args'], true)}
            />
          </Field>
          <Field
            id="handler-env"
            label="Environment allowlist"
            error={errors['handler.env']}
            hint="Variable names passed on, comma-separated (PATH and HOME always are)."
          >
            <input
              id="handler-env"
              value={draft.env}
              placeholder="GITHUB_TOKEN, LANG"
              spellcheck={false}
              autocomplete="off"
              onInput={(e) => onChange({ env: inputValue(e) })}
              {...described('handler-env', errors['handler.env'], true)}
            />
          </Field>
          <Field
            id="handler-cwd"
            label="Working folder"
            error={errors['handler.cwd']}
            hint="Optional; the server's own by default."
          >
            <input {...input('cwd', 'handler-cwd')} spellcheck={false} autocomplete="off" />
          </Field>
          <div class="form-field form-check">
            <div class="form-check-row">
              <input
                id="handler-shell"
                type="checkbox"
                checked={draft.shell}
                onChange={(e) => onChange({ shell: (e.currentTarget as HTMLInputElement).checked })}
                {...described('handler-shell', errors['handler.shell'], true)}
              />
              <label for="handler-shell">Run through /bin/sh</label>
            </div>
            <p id="handler-shell-hint" class="hint form-hint">
              Only when the command needs pipes, redirections or variables.
            </p>
            <FieldError id="handler-shell" error={errors['handler.shell']} />
          </div>
        </>
      )
    case 'http':
    case 'guardian':
      return (
        <>
          {general}
          <Field
            id="handler-url"
            label={draft.type === 'http' ? 'Webhook URL' : 'Guardian URL'}
            wide
            error={errors['handler.url']}
            hint={
              draft.type === 'http'
                ? 'The event is POSTed here as JSON.'
                : 'The remote Guardian’s AOS endpoint, e.g. http://127.0.0.1:7070/aos.'
            }
          >
            <input {...input('url', 'handler-url')} type="url" spellcheck={false} autocomplete="off" />
          </Field>
          <HeaderRows
            rows={draft.headers}
            onChange={(headers) => onChange({ headers })}
            error={errors['handler.headers']}
          />
        </>
      )
    case 'prompt':
      return (
        <>
          {general}
          <Field
            id="handler-prompt"
            label="Policy for the judge"
            wide
            error={errors['handler.prompt']}
            hint="The judge sees this and the tool's name and input, never the user's message. The hook needs a matcher or an if condition."
          >
            <textarea
              id="handler-prompt"
              rows={6}
              value={draft.prompt}
              placeholder="Deny shell commands that delete files outside /tmp."
              onInput={(e) => onChange({ prompt: inputValue(e) })}
              {...described('handler-prompt', errors['handler.prompt'], true)}
            />
          </Field>
          <Field
            id="handler-model"
            label="Model"
            error={errors['handler.model']}
            hint="Optional; the server's judge.model by default."
          >
            <input {...input('model', 'handler-model')} spellcheck={false} autocomplete="off" />
          </Field>
          <Field
            id="handler-max-tokens"
            label="Max tokens"
            error={errors['handler.maxTokens']}
            hint="Optional cap on the judge's answer."
          >
            <input
              id="handler-max-tokens"
              type="number"
              inputMode="numeric"
              min={1}
              max={32000}
              step={1}
              value={draft.maxTokens}
              onInput={(e) => onChange({ maxTokens: inputValue(e) })}
              {...described('handler-max-tokens', errors['handler.maxTokens'], true)}
            />
          </Field>
        </>
      )
    case 'script':
      return (
        <>
          {general}
          <CodeEditor
            id="handler-source"
            label="Starlark script"
            value={draft.source}
            onInput={(source) => onChange({ source })}
            errorLine={errorLine}
            error={errors['handler.source']}
            hint={
              <>
                Define <code>handle(event, payload)</code> and return <code>allow()</code>,{' '}
                <code>block(reason)</code>, <code>ask(reason)</code> or <code>modify(payload)</code>. Tab
                indents; press Esc, then Tab, to move on.
              </>
            }
          />
          <Field
            id="handler-when"
            label="When (Starlark expression)"
            wide
            error={errors['handler.when']}
            hint={
              <>
                Optional: <code>handle</code> runs only when it is true, e.g.{' '}
                <code>payload["name"] in ("exec", "Bash")</code>.
              </>
            }
          >
            <input
              {...input('when', 'handler-when')}
              class="code-mono"
              spellcheck={false}
              autocomplete="off"
            />
          </Field>
        </>
      )
    case 'deny':
    case 'allow':
    case 'ask':
      return (
        <>
          {general}
          <Field
            id="handler-reason"
            label="Reason"
            wide
            error={errors['handler.reason']}
            hint={
              draft.type === 'allow'
                ? 'Optional.'
                : `Optional; shown with the decision (default: ${draft.type === 'deny' ? 'denied' : 'asked'} by hook "<name>").`
            }
          >
            <input {...input('reason', 'handler-reason')} maxLength={2000} />
          </Field>
        </>
      )
    default:
      return (
        <>
          {general}
          <Field
            id="handler-json"
            label={`Handler settings for ${draft.type || 'this type'} (JSON)`}
            wide
            error={errors['handler.json']}
            hint={`The form has no fields for this type; edit its settings as JSON (secrets show as ${MASK}: leave them to keep them).`}
          >
            <textarea
              id="handler-json"
              rows={8}
              class="code-mono"
              spellcheck={false}
              value={draft.json}
              onInput={(e) => onChange({ json: inputValue(e) })}
              {...described('handler-json', errors['handler.json'], true)}
            />
          </Field>
        </>
      )
  }
}

/** Header rows: a name and a value each; secret-looking values are password fields. */
function HeaderRows({
  rows,
  onChange,
  error,
}: {
  rows: HeaderRow[]
  onChange: (rows: HeaderRow[]) => void
  error?: string | undefined
}) {
  const update = (key: number, patch: Partial<HeaderRow>) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, ...patch } : row)))
  return (
    <fieldset
      class="form-field form-wide form-headers"
      aria-describedby={['handler-headers-hint', error ? 'handler-headers-error' : ''].join(' ').trim()}
    >
      <legend>Headers</legend>
      {rows.length === 0 && <p class="hint">No headers.</p>}
      {rows.map((row, i) => {
        const secret = row.secret || SECRET_NAME.test(row.name)
        const nameId = `handler-header-name-${i}`
        const valueId = `handler-header-value-${i}`
        return (
          <div class="form-header-row" key={row.key}>
            <div>
              <label for={nameId}>
                Name<span class="visually-hidden"> of header {i + 1}</span>
              </label>
              <input
                id={nameId}
                value={row.name}
                placeholder="X-Team"
                spellcheck={false}
                autocomplete="off"
                aria-invalid={error ? 'true' : undefined}
                onInput={(e) => update(row.key, { name: inputValue(e) })}
              />
            </div>
            <div>
              <label for={valueId}>
                Value<span class="visually-hidden"> of header {i + 1}</span>
                {secret && <span class="form-secret"> (secret)</span>}
              </label>
              <input
                id={valueId}
                type={secret ? 'password' : 'text'}
                value={row.value}
                spellcheck={false}
                autocomplete={secret ? 'new-password' : 'off'}
                onFocus={(e) => {
                  // The mask stands for the stored secret: typing replaces it as a whole.
                  if (row.value === MASK) (e.currentTarget as HTMLInputElement).select()
                }}
                onInput={(e) => update(row.key, { value: inputValue(e) })}
              />
            </div>
            <button
              type="button"
              class="form-remove"
              aria-label={`Remove header ${i + 1}${row.name ? ` (${row.name})` : ''}`}
              onClick={() => onChange(rows.filter((r) => r.key !== row.key))}
            >
              Remove
            </button>
          </div>
        )
      })}
      <button type="button" onClick={() => onChange([...rows, headerRow()])}>
        Add header
      </button>
      <p id="handler-headers-hint" class="hint form-hint">
        Secret values (Authorization, tokens, API keys, cookies) are stored encrypted and shown as{' '}
        <code>{MASK}</code>: leave that as it is to keep the stored value.
      </p>
      <FieldError id="handler-headers" error={error} />
    </fieldset>
  )
}
