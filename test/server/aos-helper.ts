// The one helper every AOS server test goes through: starts a Guardian on loopback, posts
// to it, and validates every response body against `$defs.ASOPResponse` of BOTH AOS JSON
// Schemas, so no response a test produces escapes validation.
//
// The schemas carry known defects that contradict the spec text; the validator corrects
// exactly these, and nothing else:
// - error responses may carry `id: null` (JSON-RPC 2.0 §5 requires it when the request id
//   could not be read; the schema only allows string or integer);
// - the A2A methods are named `tasks/get` and `tasks/pushNotificationConfig/get|set`, as
//   in A2A and the spec text (the schema misspells them `task/...`).

import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { expect } from 'vitest'
import type { ApprovalAnswer, ApprovalRequest, Engine, HookDefinition } from '../../src/core/index.js'
import { createEngine } from '../../src/index.js'
import { createServer, listen, type ServerOptions } from '../../src/server/index.js'

const FIXTURES = new URL('../fixtures/aos/', import.meta.url)
const SCHEMAS = new URL('schema/', FIXTURES)
/** The AOS spec's own examples, one JSON file each. */
export const EXAMPLES_DIR = new URL('examples/', FIXTURES)

type Schema = { $defs: Record<string, Record<string, unknown>> } & Record<string, unknown>

function corrected(file: string): Schema {
  const schema = JSON.parse(readFileSync(new URL(file, SCHEMAS), 'utf8')) as Schema
  const response = schema.$defs.JSONRPCErrorResponse as { properties: { id: Record<string, unknown> } }
  response.properties.id = { type: ['string', 'integer', 'null'] }
  for (const def of Object.values(schema.$defs)) {
    const method = (def.properties as { method?: { const?: string; default?: string } } | undefined)?.method
    if (method?.const?.startsWith('task/')) {
      method.const = method.const.replace('task/', 'tasks/')
      method.default = method.const
    }
  }
  return schema
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

function compile(file: string) {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false })
  addFormats(ajv)
  ajv.addSchema(corrected(file), 'aos')
  const validate = ajv.getSchema('aos#/$defs/ASOPResponse')
  const validateRequest = ajv.getSchema('aos#/$defs/ASOPRequest')
  if (!validate || !validateRequest) throw new Error(`no ASOPResponse or ASOPRequest in ${file}`)
  return { validate, validateRequest }
}

const VALIDATORS = [
  { name: '2025-07', ...compile('aos_schema.2025-07.json') },
  { name: '2025-12', ...compile('aos_schema.2025-12.json') },
]

/** The names of the schema versions a request fits as `$defs.ASOPRequest`. */
export function requestFits(request: unknown): string[] {
  return VALIDATORS.filter(({ validateRequest }) => validateRequest(request)).map(({ name }) => name)
}

/** Fails the test unless the request (e.g. a `modifiedRequest`) fits both schemas. */
export function expectValidRequest(request: unknown): void {
  for (const { name, validateRequest } of VALIDATORS) {
    if (!validateRequest(request)) {
      throw new Error(
        `request does not validate against ASOPRequest ${name}: ${JSON.stringify(validateRequest.errors?.slice(0, 5))}\n${JSON.stringify(request).slice(0, 2000)}`,
      )
    }
  }
}

/** Fails the test unless the response (or every response of a batch) fits both schemas. */
export function expectValidResponse(body: unknown): void {
  const responses = Array.isArray(body) ? body : [body]
  for (const response of responses) {
    for (const { name, validate } of VALIDATORS) {
      const ok = validate(response)
      if (!ok) {
        throw new Error(
          `response does not validate against ASOPResponse ${name}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${JSON.stringify(response).slice(0, 2000)}`,
        )
      }
    }
  }
}

/** A posted request's answer: HTTP status and the parsed body (undefined when empty). */
export interface Posted {
  status: number
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
  body: any
}

/** A Guardian running on loopback for a test. */
export interface TestGuardian {
  url: string
  engine: Engine
  /** POSTs to /aos (an object is sent as JSON, a string or bytes as they are). */
  post(body: unknown, headers?: Record<string, string>): Promise<Posted>
  close(): Promise<void>
}

/** Starts a Guardian with the given hooks (or engine) on 127.0.0.1 and a free port. */
export async function startGuardian(
  options: {
    hooks?: HookDefinition[]
    engine?: Engine
    approver?: (request: ApprovalRequest) => Promise<ApprovalAnswer> | ApprovalAnswer
    approvalTimeoutMs?: number
  } & Partial<Omit<ServerOptions, 'engine'>> = {},
): Promise<TestGuardian> {
  const engine =
    options.engine ??
    createEngine({
      hooks: options.hooks ?? [],
      ...(options.approver ? { approver: options.approver } : {}),
      limits: { approvalTimeoutMs: options.approvalTimeoutMs ?? 30_000 },
    })
  const { hooks: _h, engine: _e, approver: _a, approvalTimeoutMs: _t, ...serverOptions } = options
  const app = await createServer({ ...serverOptions, engine })
  const url = await listen(app, { port: 0, host: '127.0.0.1' })
  return {
    url,
    engine,
    post: (body, headers) => postAos(url, body, headers),
    async close() {
      await app.close()
      await engine.close()
    },
  }
}

/** POSTs to `${url}/aos` and validates whatever comes back against both schemas. */
export async function postAos(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Posted> {
  const payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body)
  const response = await fetch(`${url}/aos`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: payload,
  })
  const text = await response.text()
  const parsed = text.length > 0 ? JSON.parse(text) : undefined
  if (parsed !== undefined) expectValidResponse(parsed)
  else expect(response.status).toBe(204)
  return { status: response.status, body: parsed }
}

/** Reads a spec example by file name. */
export function example(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, EXAMPLES_DIR), 'utf8'))
}
