// Hash routing: `#/hooks/abc/test` → ['hooks', 'abc', 'test'], with a query string after `?`.
// A part that is not valid percent-encoding (`%E0%A4%A`) makes the route `malformed`, for a
// not-found view, instead of throwing while the page renders.

import { useEffect, useState } from 'preact/hooks'

export interface Route {
  parts: string[]
  query: URLSearchParams
  /** The hash could not be decoded: no page matches it. */
  malformed?: true
}

function read(): Route {
  const hash = location.hash.replace(/^#\/?/, '')
  const [path = '', query = ''] = hash.split('?')
  let search: URLSearchParams
  try {
    search = new URLSearchParams(query)
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
    return { parts, query: search }
  } catch {
    return { parts: [], query: new URLSearchParams(), malformed: true }
  }
}

/** The current route; re-renders on navigation. */
export function useRoute(): Route {
  const [route, setRoute] = useState(read)
  useEffect(() => {
    const update = () => setRoute(read())
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return route
}

/** Goes to a path such as `/hooks/x`. */
export function navigate(path: string): void {
  location.hash = `#${path}`
}

/** The href of a path, for links. */
export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`
}
