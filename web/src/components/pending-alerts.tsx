// Telling an operator that a request waits, wherever they are: the count of pending
// approvals (kept live by pushes) in the header badge and in the tab's title, and — only
// when the operator turns them on with a click, which is when the browser is asked for
// permission — a desktop notification for each new request while the tab is in the
// background. The choice is kept in this browser (localStorage).

import { useEffect, useState } from 'preact/hooks'
import { useSession } from '../session'
import type { Approval } from '../types'

const KEY = 'warden.notify'
const BASE_TITLE = 'Warden'

/** The number of pending approvals, kept live by pushes; also shown in the tab's title. */
export function usePendingCount(): number | undefined {
  const { client, can } = useSession()
  const [count, setCount] = useState<number>()
  useEffect(() => {
    if (!can('approvals.list')) return
    const refresh = () =>
      void client
        .call<{ approvals: Approval[] }>('approvals.list', { status: 'pending', limit: 1000 })
        .then((page) => setCount(page.approvals.length))
        .catch(() => undefined)
    refresh()
    const offs = [client.on('approval.requested', refresh), client.on('approval.resolved', refresh)]
    return () => {
      for (const off of offs) off()
    }
  }, [client])
  useEffect(() => {
    document.title = count ? `(${count}) ${BASE_TITLE} · approvals waiting` : BASE_TITLE
  }, [count])
  return count
}

/** Whether this browser can show notifications at all. */
function supported(): boolean {
  return typeof Notification !== 'undefined'
}

/** Whether the operator turned notifications on (and the browser still allows them). */
export function notificationsOn(): boolean {
  return supported() && Notification.permission === 'granted' && localStorage.getItem(KEY) === 'on'
}

/** Shows a notification for each new request while this tab is hidden, once turned on. */
export function useApprovalNotifications(): void {
  const { client, can } = useSession()
  useEffect(() => {
    if (!can('approvals.list')) return
    return client.on('approval.requested', (payload) => {
      const approval = payload as Approval
      if (approval.status !== 'pending' || !notificationsOn() || !document.hidden) return
      const tool = approval.input?.payload?.tool as { name?: unknown } | undefined
      const what = typeof tool?.name === 'string' ? tool.name : (approval.event ?? 'a request')
      const note = new Notification('Warden: an approval waits', {
        body: `${what}${approval.tenant ? ` · tenant ${approval.tenant}` : ''} — ${approval.asks[0]?.reason ?? 'a hook asked for a human'}`,
        tag: `warden-approval-${approval.id}`,
      })
      note.onclick = () => {
        window.focus()
        location.hash = '#/approvals'
        note.close()
      }
    })
  }, [client])
}

/** The opt-in switch: asks the browser for permission only when the operator clicks it. */
export function NotifyToggle() {
  const [on, setOn] = useState(notificationsOn)
  const [denied, setDenied] = useState(() => supported() && Notification.permission === 'denied')
  if (!supported()) return <p class="hint">This browser cannot show desktop notifications.</p>
  const toggle = async () => {
    if (on) {
      localStorage.setItem(KEY, 'off')
      setOn(false)
      return
    }
    const permission =
      Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission()
    if (permission !== 'granted') {
      setDenied(true)
      return
    }
    localStorage.setItem(KEY, 'on')
    setOn(true)
  }
  return (
    <div class="ap-notify">
      <button type="button" aria-pressed={on} onClick={() => void toggle()}>
        {on ? 'Desktop notifications on' : 'Notify me of new requests'}
      </button>
      {denied && !on && (
        <span class="hint" role="status">
          The browser blocks notifications for this site; allow them in its site settings.
        </span>
      )}
    </div>
  )
}
