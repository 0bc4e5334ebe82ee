// The new-hook form's starter templates (pages/hook-templates.ts): one button each, filling
// the draft with a common hook to adjust before saving. Templates whose handler type this
// server does not offer are left out.

import { type HookTemplate, TEMPLATES } from './hook-templates'

export function TemplatePicker(props: { types: string[]; onPick(template: HookTemplate): void }) {
  const offered = TEMPLATES.filter((t) => props.types.includes(t.handler.type))
  if (offered.length === 0) return null
  return (
    <details class="card form-section form-templates" open>
      <summary>Start from a template</summary>
      <ul class="tpl-list">
        {offered.map((t) => (
          <li key={t.id}>
            <button type="button" data-template={t.id} onClick={() => props.onPick(t)}>
              {t.label}
            </button>
            <span class="hint">{t.summary}</span>
          </li>
        ))}
      </ul>
    </details>
  )
}
