// Hash routing: `#/hooks/abc/test` → ['hooks', 'abc', 'test'], with a query string after `?`.

import { useEffect, useState } from 'preact/hooks'

export interface Route {
  parts: string[]
  query: URLSearchParams
}

function read(): Route {
  const hash = location.hash.replace(/^#\/?/, '')
  const [path = '', query = ''] = hash.split('?')
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query) }
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
