// The signed-in app (home: the overview): a header with the navigation, the pending approvals badge (also in the
// tab's title, components/pending-alerts.tsx) and who is signed in, and the page the hash
// route names.

import { useApprovalNotifications, usePendingCount } from './components/pending-alerts'
import { ApprovalsPage } from './pages/approvals'
import { DecisionPage } from './pages/decision-detail'
import { DecisionsPage } from './pages/decisions'
import { HookDetail } from './pages/hook-detail'
import { HookForm } from './pages/hook-form'
import { HooksPage } from './pages/hooks'
import { OverviewPage } from './pages/overview'
import { href, useRoute } from './router'
import { useSession } from './session'

const SECTIONS = new Set(['overview', 'hooks', 'decisions', 'approvals'])

/** What an address that names no page shows. */
function NotFound() {
  return (
    <section class="card not-found">
      <h2>Page not found</h2>
      <p>Nothing here has this address. It may be mistyped or cut short.</p>
      <p>
        <a href={href('hooks')}>Go to the hooks</a>
      </p>
    </section>
  )
}

function Page() {
  const { parts, malformed } = useRoute()
  const [section = 'overview', id, tab] = parts
  if (malformed || !SECTIONS.has(section)) return <NotFound />
  if (section === 'hooks' && id === 'new') return <HookForm />
  if (section === 'hooks' && id && tab === 'edit') return <HookForm id={id} />
  if (section === 'hooks' && id) return <HookDetail id={id} tab={tab ?? 'overview'} />
  if (section === 'decisions' && id) return <DecisionPage id={id} />
  if (section === 'decisions') return <DecisionsPage />
  if (section === 'approvals') return <ApprovalsPage />
  if (section === 'hooks') return <HooksPage />
  return <OverviewPage />
}

export function App() {
  const { info, signOut } = useSession()
  const { parts } = useRoute()
  const section = parts[0] ?? 'overview'
  const pending = usePendingCount()
  useApprovalNotifications()
  const link = (name: string, label: string, extra?: preact.ComponentChildren) => (
    <a href={href(name)} aria-current={section === name ? 'page' : undefined}>
      {label}
      {extra}
    </a>
  )
  return (
    <>
      <header class="top">
        <a class="brand" href={href('overview')}>
          Warden
        </a>
        <nav aria-label="Main">
          {link('overview', 'Overview')}
          {link('hooks', 'Hooks')}
          {link('decisions', 'Decisions')}
          {link(
            'approvals',
            'Approvals',
            pending ? (
              <span class="count" title={`${pending} pending`}>
                {pending}
                <span class="visually-hidden"> pending</span>
              </span>
            ) : null,
          )}
        </nav>
        <div class="who">
          <span title={`token ${info.token.id}`}>{info.token.name}</span>
          <span class="role">{info.token.role}</span>
          <span class="tenant">{info.token.tenant ? `tenant ${info.token.tenant}` : 'all tenants'}</span>
          <button type="button" class="link" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main class="page">
        <Page />
      </main>
    </>
  )
}
