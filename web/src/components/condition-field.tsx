// The `if` (CEL) condition field of the hook form, with the variables the chosen event
// offers: completion while typing (the variable paths that start with the word at the
// cursor, chosen with the arrow keys and Enter or Tab, or a click), and a reference table
// with each variable's type and an example, a click inserting it. The variables come from
// the server (`events.reference`), which derives them from the engine's event catalog.

import { useEffect, useMemo, useState } from 'preact/hooks'
import { useSession } from '../session'
import type { ConditionVariable } from '../types'
import { described, Field } from './form-field'

/** The identifier path (`tool_input.pa`) that ends at the cursor, and where it starts. */
export function wordAt(text: string, cursor: number): { start: number; word: string } {
  const before = text.slice(0, cursor)
  const match = /[A-Za-z_][A-Za-z0-9_.]*$/.exec(before)
  return match ? { start: cursor - match[0].length, word: match[0] } : { start: cursor, word: '' }
}

/** The variables of an event, loaded once per event. */
function useReference(event: string): ConditionVariable[] | undefined {
  const { client, can } = useSession()
  const [vars, setVars] = useState<{ event: string; list: ConditionVariable[] }>()
  useEffect(() => {
    if (!can('events.reference')) return
    let live = true
    client
      .call<{ variables: ConditionVariable[] }>('events.reference', { event })
      .then((answer) => live && setVars({ event, list: answer.variables }))
      .catch(() => live && setVars({ event, list: [] }))
    return () => {
      live = false
    }
  }, [client, event])
  return vars?.event === event ? vars.list : undefined
}

const MAX_SUGGESTIONS = 8

export function ConditionField(props: {
  event: string
  value: string
  error: string | undefined
  onChange(value: string): void
}) {
  const vars = useReference(props.event)
  const [cursor, setCursor] = useState<number>()
  const [active, setActive] = useState(0)
  const [dismissed, setDismissed] = useState(false)
  const { start, word } = wordAt(props.value, cursor ?? props.value.length)
  const suggestions = useMemo(
    () =>
      cursor === undefined || word.length === 0 || !vars
        ? []
        : vars.filter((v) => v.path.startsWith(word) && v.path !== word).slice(0, MAX_SUGGESTIONS),
    [vars, word, cursor],
  )
  const open = suggestions.length > 0 && !dismissed

  const insert = (path: string, from = start, to = cursor ?? props.value.length) => {
    const next = props.value.slice(0, from) + path + props.value.slice(to)
    props.onChange(next)
    setCursor(from + path.length)
    setDismissed(true)
    const input = document.getElementById('hook-if') as HTMLInputElement | null
    if (input) {
      input.focus()
      requestAnimationFrame(() => input.setSelectionRange(from + path.length, from + path.length))
    }
  }
  const onKeyDown = (e: KeyboardEvent) => {
    if (!open) return
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      const step = e.key === 'ArrowDown' ? 1 : -1
      setActive((i) => (i + step + suggestions.length) % suggestions.length)
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      const chosen = suggestions[active] ?? suggestions[0]
      if (chosen) {
        e.preventDefault()
        insert(chosen.path)
      }
    } else if (e.key === 'Escape') {
      setDismissed(true)
    }
  }
  const track = (e: Event) => {
    const input = e.currentTarget as HTMLInputElement
    setCursor(input.selectionStart ?? input.value.length)
  }

  return (
    <Field
      id="hook-if"
      label="Condition (if, CEL)"
      error={props.error}
      wide
      hint={
        <>
          Optional, e.g. <code>has(tool_input.path)</code>. Type a variable's start for suggestions.
        </>
      }
    >
      <div class="cel-field">
        <input
          id="hook-if"
          class="code-mono"
          value={props.value}
          spellcheck={false}
          autocomplete="off"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls="hook-if-suggestions"
          aria-activedescendant={open ? `hook-if-option-${active}` : undefined}
          onInput={(e) => {
            props.onChange((e.currentTarget as HTMLInputElement).value)
            track(e)
            setActive(0)
            setDismissed(false)
          }}
          onKeyUp={track}
          onClick={track}
          onKeyDown={onKeyDown}
          onBlur={() => setTimeout(() => setDismissed(true), 150)}
          {...described('hook-if', props.error, true)}
        />
        {open && (
          <div id="hook-if-suggestions" class="cel-suggestions" role="listbox" aria-label="Variables">
            {suggestions.map((v, i) => (
              <div
                key={v.path}
                id={`hook-if-option-${i}`}
                role="option"
                tabIndex={-1}
                aria-selected={i === active}
                onMouseDown={(e) => {
                  e.preventDefault()
                  insert(v.path)
                }}
              >
                <code>{v.path}</code> <span class="hint">{v.type}</span>
              </div>
            ))}
          </div>
        )}
      </div>
      <details class="cel-reference">
        <summary>Variables for {props.event}</summary>
        {!vars ? (
          <p class="hint">Loading…</p>
        ) : (
          <table>
            <caption class="visually-hidden">Variables a condition on {props.event} can use</caption>
            <thead>
              <tr>
                <th scope="col">Variable</th>
                <th scope="col">Type</th>
                <th scope="col">Example</th>
              </tr>
            </thead>
            <tbody>
              {vars.map((v) => (
                <tr key={v.path}>
                  <td>
                    <button
                      type="button"
                      class="link code-mono"
                      title={`Insert ${v.path}`}
                      onClick={() =>
                        insert(v.path, cursor ?? props.value.length, cursor ?? props.value.length)
                      }
                    >
                      {v.path}
                    </button>
                  </td>
                  <td>{v.type}</td>
                  <td>
                    <code>{v.example}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </details>
    </Field>
  )
}
