// Placeholder: one hook.
export function HookDetail({ id }: { id: string; tab: string }) {
  return <h1>Hook {id}</h1>
}
