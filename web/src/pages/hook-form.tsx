// Placeholder: create or edit a hook.
export function HookForm({ id }: { id?: string }) {
  return <h1>{id ? `Edit ${id}` : 'New hook'}</h1>
}
