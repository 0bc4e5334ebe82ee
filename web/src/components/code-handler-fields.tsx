// Handler sub-forms for the types that run code: command (a program on the server, its
// arguments, environment allowlist, folder and shell) and script (Starlark in the code
// editor, with an optional `when` expression).

import { CodeEditor } from './code-editor'
import { described, Field, FieldError, inputValue } from './form-field'
import { draftInput, type HandlerFieldsProps } from './handler-draft'

/** The command type's fields. */
export function CommandFields(props: HandlerFieldsProps) {
  const { draft, onChange, errors } = props
  return (
    <>
      <Field
        id="handler-command"
        label="Command"
        wide
        error={errors['handler.command']}
        hint="The program and its arguments; shell operators need the shell option."
      >
        <input
          {...draftInput(props, 'command', 'handler-command')}
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
        <input {...draftInput(props, 'cwd', 'handler-cwd')} spellcheck={false} autocomplete="off" />
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
}

/** The script type's fields. */
export function ScriptFields(props: HandlerFieldsProps) {
  const { draft, onChange, errors, errorLine } = props
  return (
    <>
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
            <code>block(reason)</code>, <code>ask(reason)</code> or <code>modify(payload)</code>. Tab indents;
            press Esc, then Tab, to move on.
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
          {...draftInput(props, 'when', 'handler-when')}
          class="code-mono"
          spellcheck={false}
          autocomplete="off"
        />
      </Field>
    </>
  )
}
