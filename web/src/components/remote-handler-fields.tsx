// Handler sub-forms for the types that call out: http (a webhook) and guardian (a remote
// AOS guardian), a URL and header rows whose secret values stay masked, and prompt (an LLM
// judge with its policy, model and token cap).

import { described, Field, FieldError, inputValue } from './form-field'
import { draftInput, type HandlerFieldsProps, type HeaderRow, headerRow, MASK } from './handler-draft'

/** Header names whose values are secrets (the server's own rule, store/sealing.ts). */
const SECRET_NAME =
  /(authorization|password|passwd|secret|token|api[-_]?key|cookie|credential|private[-_]?key)/i

/** The http and guardian types' fields: where to send the event, and with which headers. */
export function EndpointFields(props: HandlerFieldsProps) {
  const { draft, onChange, errors } = props
  return (
    <>
      <Field
        id="handler-url"
        label={draft.type === 'http' ? 'Webhook URL' : 'Guardian URL'}
        wide
        error={errors['handler.url']}
        hint={`${
          draft.type === 'http'
            ? 'The event is POSTed here as JSON.'
            : 'The remote Guardian’s AOS endpoint, e.g. http://127.0.0.1:7070/aos.'
        } A stored URL shows its credentials and query values as ***: leave them as they are to keep the stored ones.`}
      >
        <input
          {...draftInput(props, 'url', 'handler-url')}
          type="url"
          spellcheck={false}
          autocomplete="off"
        />
      </Field>
      <HeaderRows
        rows={draft.headers}
        onChange={(headers) => onChange({ headers })}
        error={errors['handler.headers']}
      />
    </>
  )
}

/** The prompt type's fields. */
export function PromptFields(props: HandlerFieldsProps) {
  const { draft, onChange, errors } = props
  return (
    <>
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
        <input {...draftInput(props, 'model', 'handler-model')} spellcheck={false} autocomplete="off" />
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
