// The handler sub-form of the hook form for the chosen type: an error about the handler as
// a whole, then that type's fields (code-handler-fields.tsx, remote-handler-fields.tsx, or
// here a reason for deny / allow / ask and JSON for a type the form has no fields for).

import { CommandFields, ScriptFields } from './code-handler-fields'
import { described, Field, inputValue } from './form-field'
import { draftInput, type HandlerFieldsProps, MASK } from './handler-draft'
import { EndpointFields, PromptFields } from './remote-handler-fields'

/** The sub-form of the draft's handler type. */
export function HandlerFields(props: HandlerFieldsProps) {
  const { errors } = props
  const general = errors.handler ? (
    <p id="handler-error" class="field-error form-wide" role="alert">
      {errors.handler}
    </p>
  ) : null
  return (
    <>
      {general}
      <TypeFields {...props} />
    </>
  )
}

/** The fields of the draft's type. */
function TypeFields(props: HandlerFieldsProps) {
  switch (props.draft.type) {
    case 'command':
      return <CommandFields {...props} />
    case 'http':
    case 'guardian':
      return <EndpointFields {...props} />
    case 'prompt':
      return <PromptFields {...props} />
    case 'script':
      return <ScriptFields {...props} />
    case 'deny':
    case 'allow':
    case 'ask':
      return <ReasonFields {...props} />
    default:
      return <JsonFields {...props} />
  }
}

/** The deny, allow and ask types' field: the reason shown with the decision. */
function ReasonFields(props: HandlerFieldsProps) {
  const { draft, errors } = props
  return (
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
      <input {...draftInput(props, 'reason', 'handler-reason')} maxLength={2000} />
    </Field>
  )
}

/** A type the form has no fields for: its settings as JSON. */
function JsonFields({ draft, onChange, errors }: HandlerFieldsProps) {
  return (
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
  )
}
