// Placeholder: decisions.
export function DecisionsPage() {
  return <h1>Decisions</h1>
}
export function DecisionPage({ id }: { id: string }) {
  return <h1>Decision {id}</h1>
}
