// The upstream's agent card: fetched (bounded, cached for a short while), checked to be a
// JSON object with a name, its interfaces read (JSON-RPC and HTTP+JSON, in the current
// `supportedInterfaces` form and the v0.3 `url` / `additionalInterfaces` form), and the
// copy given to clients rewritten so that every interface URL points at the gateway.

import type { JsonObject } from '../../core/index.js'
import { redactUrl } from '../../net/index.js'
import { type Upstream, UpstreamError } from '../kit/index.js'
import { isObject } from './payload.js'

/** The well-known path of the agent card, and the v0.3 one. */
export const CARD_PATHS = ['/.well-known/agent-card.json', '/.well-known/agent.json'] as const

/** One interface of the upstream agent the gateway forwards to. */
export interface CardInterface {
  binding: 'JSONRPC' | 'HTTP+JSON'
  /** Where the upstream serves it. */
  url: URL
  /** The path clients use on the gateway (the same as the upstream's). */
  path: string
}

/** The upstream card as read. */
export interface UpstreamCard {
  card: JsonObject
  name: string
  interfaces: CardInterface[]
  /** Interfaces that were left out, and why (logged once per fetch). */
  skipped: string[]
}

/** Fetches and caches the upstream's card. */
export class CardSource {
  private cached: { card: UpstreamCard; at: number } | undefined
  private inFlight: Promise<UpstreamCard> | undefined

  constructor(
    private readonly upstream: Upstream,
    private readonly base: URL,
    private readonly ttlMs: number,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /**
   * The card, from the cache when fresh.
   * @throws UpstreamError when it cannot be fetched or is not a valid card.
   */
  get(): Promise<UpstreamCard> {
    if (this.cached && Date.now() - this.cached.at < this.ttlMs) return Promise.resolve(this.cached.card)
    this.inFlight ??= this.fetch().finally(() => {
      this.inFlight = undefined
    })
    return this.inFlight
  }

  /** The card cached last, even when stale (routing keeps working while a refresh fails). */
  last(): UpstreamCard | undefined {
    return this.cached?.card
  }

  private async fetch(): Promise<UpstreamCard> {
    const url = new URL(CARD_PATHS[0], this.base)
    const answer = await this.upstream.call({ url, method: 'GET', headers: { accept: 'application/json' } })
    const where = redactUrl(url.href)
    if (answer.status !== 200) {
      throw new UpstreamError('garbage', `the upstream agent card at ${where} answered HTTP ${answer.status}`)
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(answer.text)
    } catch {
      throw new UpstreamError('garbage', `the upstream agent card at ${where} is not JSON`)
    }
    const card = readCard(parsed, this.base, where)
    for (const line of card.skipped) this.log(line)
    this.cached = { card, at: Date.now() }
    return card
  }
}

/**
 * Reads a card's name and interfaces; interfaces on another origin than the upstream's are
 * skipped (the gateway forwards only to the agent it was pointed at).
 * @throws UpstreamError when the card is not an object with a name.
 */
export function readCard(value: unknown, base: URL, where: string): UpstreamCard {
  if (!isObject(value) || typeof value.name !== 'string' || value.name.length === 0) {
    throw new UpstreamError('garbage', `the upstream agent card at ${where} is not an agent card (no name)`)
  }
  const interfaces: CardInterface[] = []
  const skipped: string[] = []
  const add = (url: unknown, binding: unknown) => {
    if (typeof url !== 'string' || typeof binding !== 'string') return
    const kind =
      binding.toUpperCase() === 'JSONRPC'
        ? 'JSONRPC'
        : binding.toUpperCase() === 'HTTP+JSON'
          ? 'HTTP+JSON'
          : undefined
    if (!kind) return
    let parsed: URL
    try {
      parsed = new URL(url, base)
    } catch {
      skipped.push(`card interface ${kind} has an invalid URL; skipped`)
      return
    }
    if (parsed.origin !== base.origin) {
      skipped.push(
        `card interface ${kind} at ${redactUrl(parsed.href)} is not on the upstream's origin; skipped`,
      )
      return
    }
    const path = parsed.pathname.replace(/\/+$/, '') || '/'
    if (!interfaces.some((i) => i.binding === kind && i.path === path))
      interfaces.push({ binding: kind, url: parsed, path })
  }
  for (const entry of Array.isArray(value.supportedInterfaces) ? value.supportedInterfaces : []) {
    if (isObject(entry)) add(entry.url, entry.protocolBinding ?? entry.transport)
  }
  if (typeof value.url === 'string') add(value.url, value.preferredTransport ?? 'JSONRPC')
  for (const entry of Array.isArray(value.additionalInterfaces) ? value.additionalInterfaces : []) {
    if (isObject(entry)) add(entry.url, entry.transport ?? entry.protocolBinding)
  }
  return { card: value, name: value.name, interfaces, skipped }
}

/** A copy of the card whose interface URLs point at the gateway (same paths). */
export function rewriteCard(card: JsonObject, gateway: URL): JsonObject {
  const moved = (url: unknown): string | undefined => {
    if (typeof url !== 'string') return undefined
    try {
      const parsed = new URL(url)
      return new URL(`${parsed.pathname}${parsed.search}`, gateway).href
    } catch {
      return undefined
    }
  }
  const copy: JsonObject = { ...card }
  const rewriteList = (key: string) => {
    const list = card[key]
    if (!Array.isArray(list)) return
    copy[key] = list.map((entry) => {
      if (!isObject(entry)) return entry
      const url = moved(entry.url)
      return url === undefined ? entry : { ...entry, url }
    })
  }
  rewriteList('supportedInterfaces')
  rewriteList('additionalInterfaces')
  const url = moved(card.url)
  if (url !== undefined) copy.url = url
  return copy
}
