// A resources/read answer as the design's retrieval events: what an MCP server returns for
// a resource is knowledge the agent retrieves (`knowledge.retrieve`, the URI as its query,
// the contents as its results), or a memory when the URI's scheme is `memory:`
// (`memory.retrieve`, the contents as its items). So the knowledge and memory hooks an AOS
// agent posts to `/aos` also hold behind `warden mcp`, after the answer's own
// `mcp.resource.read.post` check. A deny refuses the answer; a modify of the results (or
// items) replaces the resource's contents, checked as resources/read contents.

import type { Json, JsonObject } from '../../core/index.js'

/** The retrieval event a read resource's URI maps to. */
export function retrievalEvent(uri: string): 'knowledge.retrieve' | 'memory.retrieve' {
  return /^memory:/i.test(uri) ? 'memory.retrieve' : 'knowledge.retrieve'
}

/** The payload key of a retrieval event (`knowledge` or `memory`). */
export function retrievalKey(event: 'knowledge.retrieve' | 'memory.retrieve'): 'knowledge' | 'memory' {
  return event === 'memory.retrieve' ? 'memory' : 'knowledge'
}

/** The retrieval payload of a read resource: its URI as the query, its contents as what came back. */
export function retrievalPayload(uri: string, contents: Json): JsonObject {
  const list = Array.isArray(contents) ? contents : []
  return retrievalEvent(uri) === 'memory.retrieve'
    ? { memory: { query: uri, items: list } }
    : { knowledge: { query: uri, results: list } }
}

/** The contents a hook's modify gives back (its results or items), or undefined when it gives none. */
export function retrievedContents(view: Json | undefined): Json | undefined {
  if (typeof view !== 'object' || view === null || Array.isArray(view)) return undefined
  const record = view as JsonObject
  return record.results ?? record.items
}
