// Each hook's activity for the hooks list: runs and denials over the last 24 hours (in 24
// hourly buckets) and its last run, from `hooks.activity` (skipped runs are not runs).
// Loaded once the list shows, and again every minute.

import { useEffect, useState } from 'preact/hooks'
import { useSession } from '../session'
import type { HookActivity } from '../types'

const EVERY = 60_000

/** The activity by hook id; undefined until the first answer (or when not allowed). */
export function useHookActivity(): Map<string, HookActivity> | undefined {
  const { client, can } = useSession()
  const [activity, setActivity] = useState<Map<string, HookActivity>>()
  useEffect(() => {
    if (!can('hooks.activity')) return
    let live = true
    const load = () =>
      void client
        .call<{ hooks: HookActivity[] }>('hooks.activity', { hours: 24, buckets: 24 })
        .then((answer) => live && setActivity(new Map(answer.hooks.map((h) => [h.id, h]))))
        .catch(() => undefined)
    load()
    const timer = setInterval(load, EVERY)
    return () => {
      live = false
      clearInterval(timer)
    }
  }, [client])
  return activity
}
