// A JSON text area that says, next to it, why its text is not a JSON object.

/** Parses the text as a JSON object; the error reads as a sentence. */
export function parseJsonObject(text: string): { value?: Record<string, unknown>; error?: string } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { error: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: 'Must be a JSON object ({ … }).' }
  return { value: value as Record<string, unknown> }
}

/** A labelled monospace text area for JSON, with its parse error tied to it. */
export function JsonEditor({
  id,
  label,
  value,
  error,
  rows = 10,
  onInput,
}: {
  id: string
  label: string
  value: string
  error?: string | undefined
  rows?: number
  onInput: (text: string) => void
}) {
  return (
    <div class="json-editor">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        class="code"
        rows={rows}
        spellcheck={false}
        autocapitalize="off"
        autocomplete="off"
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onInput={(e) => onInput((e.target as HTMLTextAreaElement).value)}
      />
      {error && (
        <p id={`${id}-error`} class="json-error" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}
