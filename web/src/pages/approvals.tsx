// Placeholder: the approvals inbox.
export function ApprovalsPage() {
  return <h1>Approvals</h1>
}
