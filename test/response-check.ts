// Every response a test receives from app.inject on an app built by test/helper.ts, and from call()
// to a server process of test/peers/server-process.ts, is checked against that app's own OpenAPI
// document (app.swagger(), what GET /api/v1/openapi.json serves): the path and method are
// documented, so is the status, the content type is the documented one, and a JSON body validates
// (Ajv, JSON Schema 2020-12: OpenAPI 3.1's dialect). The check runs as each response arrives and
// keeps nothing but the names of the operations it validated, so the fuzz tests' thousands of
// requests cost no memory; a mismatch fails the test that built the app or started the server, with
// its reason.
//
// Not part of the API document, hence not checked: the dashboard's static files (everything outside
// the API prefix), the docs UI and the document itself, CORS preflights (OPTIONS, the CORS protocol's,
// answered by @fastify/cors for any path), and the bytes of an event stream (their status and content
// type are checked; an event stream is not JSON). Not seen: what clients of their own read from a
// listening app (the SSE tests' EventSource and raw streams, the dashboard's browser, the HTTP/2
// requests of test/foundation/server.test.ts) and the fault tests' direct fetch() of an ingest upload.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { FastifyInstance, HTTPMethods, LightMyRequestResponse } from 'fastify'
import { GeneralErrorSchema } from '../schemas/common.ts'
import { API_PREFIX } from '../src/app.ts'
import type { Tap } from './helper.ts'

// ajv-formats is CommonJS: its default export arrives wrapped under ESM
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020

export interface OpenApiResponse { content?: Record<string, { schema?: unknown }> }
export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, OpenApiResponse> }>>
  /** the named schemas a body schema refers to (`$ref: '#/components/schemas/Report'`) */
  components?: { schemas?: Record<string, unknown> }
}

/** what the check needs of one response */
export interface SeenResponse {
  method: string
  /** path and query, as sent */
  url: string
  statusCode: number
  contentType: string | undefined
  body: string
}

export interface Problem {
  message: string
  errors?: unknown
}

export interface Verdict {
  /** `METHOD /documented/path STATUS`, when the response belongs to a documented operation */
  operation?: string
  problem?: Problem
}

/** an Ajv for the document's schemas (2020-12, OpenAPI's own keywords such as `example` ignored) */
export function createAjv (): Ajv2020 {
  // addUsedSchema: false: a schema with an $id (GeneralError) is compiled once per place it appears
  const ajv = new Ajv2020({ strict: false, addUsedSchema: false, allErrors: true })
  addFormats(ajv)
  return ajv
}

// One compilation per distinct schema per process: every app of a file has the same document, and a
// named schema is the same in every document (src/plugins/openapi-schemas.ts refuses two under one name).
const ajv = createAjv()
const byText = new Map<string, ValidateFunction>()
const byObject = new WeakMap<object, ValidateFunction>()

/** a body schema's validator; its `$ref`s resolve in the document's components, compiled along with it */
function validatorFor (schema: object, components?: OpenApiDocument['components']): ValidateFunction {
  let v = byObject.get(schema)
  if (!v) {
    const text = JSON.stringify(schema)
    v = byText.get(text)
    if (!v) {
      const refers = text.includes('"#/components/')
      byText.set(text, v = ajv.compile(refers ? { ...schema, components: { schemas: components?.schemas ?? {} } } : schema))
    }
    byObject.set(schema, v)
  }
  return v
}

const generalError = validatorFor(GeneralErrorSchema)

interface Template { path: string, re: RegExp, statics: number }
/** whether the app has a route, as Fastify names it (`/report/:id`): app.hasRoute */
type HasRoute = (method: string, url: string) => boolean

/** the document's paths as patterns, the most specific first (a static segment wins over a parameter, as in Fastify) */
function templatesOf (doc: OpenApiDocument, hasRoute?: HasRoute): Map<string, Template[]> {
  const byMethod = new Map<string, Template[]>()
  for (const [path, item] of Object.entries(doc.paths)) {
    const segments = path.split('/')
    const statics = segments.filter((s) => !s.startsWith('{')).length
    // a parameter may be empty: Fastify routes `/recovery/` to `/recovery/:hash` with hash ''
    const body = segments.map((s) => s.startsWith('{') ? '[^/]*' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('/')
    const route = path.replace(/\{([^}]+)\}/g, ':$1')
    const add = (method: string, re: RegExp) => {
      const list = byMethod.get(method) ?? []
      list.push({ path, re, statics })
      byMethod.set(method, list)
    }
    for (const method of Object.keys(item)) {
      const upper = method.toUpperCase()
      // a prefix's root route (`/report/`) answers with and without its slash; the document names it without
      const re = new RegExp(`^${body}${hasRoute?.(upper, `${route}/`) ? '/?' : ''}$`)
      add(upper, re)
      // Fastify answers HEAD for a GET route (the GET's status and headers, no body) unless the route
      // opts out (exposeHeadRoute: false, the SSE stream): then HEAD is an unknown route like any other
      if (upper === 'GET' && (!hasRoute || hasRoute('HEAD', route) || hasRoute('HEAD', `${route}/`))) add('HEAD', re)
    }
  }
  for (const list of byMethod.values()) list.sort((a, b) => b.statics - a.statics)
  return byMethod
}

/** per document, per route lookup (one of each per app) */
const templateCache = new WeakMap<OpenApiDocument, Map<HasRoute | undefined, Map<string, Template[]>>>()

/** fuzzed URLs run to kilobytes */
const short = (url: string) => url.length > 200 ? `${url.slice(0, 200)}…` : url

function mediaType (contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase()
}

function validateJson (validate: ValidateFunction, body: string, label: string): Problem | undefined {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return { message: `${label}: the body is not JSON` }
  }
  if (validate(value)) return undefined
  return { message: `${label}: the body does not match the documented schema`, errors: validate.errors?.slice(0, 5) }
}

/** whether a response matches the document; no problem too when it is not the document's business */
export function checkResponse (doc: OpenApiDocument, r: SeenResponse, hasRoute?: HasRoute): Verdict {
  const path = r.url.split('?')[0]
  // the dashboard (public/, served at /) and the docs UI are not API routes; the document does not describe itself
  if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) return {}
  if (path === `${API_PREFIX}/openapi.json` || path === `${API_PREFIX}/openapi-3.2.json` || path === `${API_PREFIX}/docs` || path.startsWith(`${API_PREFIX}/docs/`)) return {}
  // a CORS preflight is the CORS protocol's, answered by @fastify/cors for every path
  if (r.method === 'OPTIONS') return {}

  let cached = templateCache.get(doc)
  if (!cached) templateCache.set(doc, cached = new Map())
  let templates = cached.get(hasRoute)
  if (!templates) cached.set(hasRoute, templates = templatesOf(doc, hasRoute))
  // HEAD is the GET operation's answer without its body
  const head = r.method === 'HEAD'
  const method = head ? 'GET' : r.method
  const label = `${r.method} ${short(r.url)} -> ${r.statusCode}`
  const template = templates.get(r.method)?.find((x) => x.re.test(path))
  const media = mediaType(r.contentType)

  if (!template) {
    // no such operation: only the not-found answer (or an error raised before routing) may come back
    if (r.statusCode < 400) return { problem: { message: `${label}: ${r.method} ${short(path)} is not in the document` } }
    if (media !== 'application/json') return { problem: { message: `${label}: an error outside the document must be a GeneralError, got content type ${r.contentType}` } }
    return { problem: head ? undefined : validateJson(generalError, r.body, `${label} (no documented operation: the GeneralError shape)`) }
  }

  const responses = doc.paths[template.path][method.toLowerCase()].responses
  const status = String(r.statusCode)
  const where = `${method} ${template.path}`
  const operation = `${where} ${status}`
  const documented = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default
  if (!documented) return { operation, problem: { message: `${label}: status ${status} is not documented for ${where} (documented: ${Object.keys(responses).join(', ')})` } }

  const content = documented.content ?? {}
  if (r.statusCode === 204 || r.statusCode === 304 || Object.keys(content).length === 0) {
    if (head || r.body === '') return { operation }
    return { operation, problem: { message: `${label}: ${where} ${status} has no body in the document, got ${r.body.length} bytes` } }
  }
  const entry = content[media]
  if (!entry) {
    return { operation, problem: { message: `${label}: content type ${r.contentType ?? '(none)'} is not documented for ${where} ${status} (documented: ${Object.keys(content).join(', ')})` } }
  }
  // HEAD carries no body; an event stream is not JSON: their status and media type are what can be checked
  if (head || media !== 'application/json' || !entry.schema) return { operation }
  return { operation, problem: validateJson(validatorFor(entry.schema as object, doc.components), r.body, `${label} (${where})`) }
}

/** `METHOD /documented/path STATUS` of every response validated, per app */
const validated = new WeakMap<FastifyInstance, Set<string>>()
export function validatedOperations (app: FastifyInstance): Set<string> {
  return validated.get(app) ?? new Set()
}

/** at most this many mismatches are reported per app: a broken route under a fuzz test would print thousands */
const MAX_REPORTED = 10

/** checks responses against one document, keeps the operations validated, fails `t` on a mismatch */
function checker (t: Tap, document: () => OpenApiDocument, seen: Set<string>, hasRoute?: HasRoute): (r: SeenResponse) => void {
  let reported = 0
  let ended = false
  t.teardown(() => { ended = true })
  return (r) => {
    let verdict: Verdict
    try {
      verdict = checkResponse(document(), r, hasRoute)
    } catch (err) {
      verdict = { problem: { message: `${r.method} ${short(r.url)} -> ${r.statusCode}: the check failed: ${(err as Error).message}` } }
    }
    const { operation, problem } = verdict
    if (!problem) {
      if (operation) seen.add(operation)
      return
    }
    if (++reported > MAX_REPORTED) return
    const more = reported === MAX_REPORTED ? ' (further mismatches of this app are not reported)' : ''
    const message = `the response matches the OpenAPI document: ${problem.message}${more}`
    const extra = { errors: problem.errors, contentType: r.contentType, body: r.body.slice(0, 500) }
    // after the test's end tap drops a failure's message: it goes to stderr as well
    if (ended) console.error(message, extra)
    t.fail?.(message, extra)
  }
}

/**
 * Check every response app.inject hands out (to the test and to helpers such as signedInUser)
 * against the app's document; fail `t` on a mismatch. Call before the app is used.
 */
export function checkResponsesIn (t: Tap, app: FastifyInstance): void {
  const original = app.inject as unknown as (this: FastifyInstance, ...args: unknown[]) => unknown
  const seen = new Set<string>()
  validated.set(app, seen)
  const check = checker(t, () => app.swagger() as unknown as OpenApiDocument, seen,
    (method, url) => app.hasRoute({ method: method as HTTPMethods, url }))

  // The promise form is checked; the callback and chain forms (unused by the suite) pass through.
  app.inject = ((opts?: unknown, callback?: unknown) => {
    if (opts === undefined || callback !== undefined) return original.call(app, opts, callback)
    return (original.call(app, opts) as Promise<LightMyRequestResponse>).then((res) => {
      const req = res.raw.req
      check({
        method: (req.method ?? 'GET').toUpperCase(),
        url: req.url ?? '/',
        statusCode: res.statusCode,
        contentType: res.headers['content-type'] as string | undefined,
        body: res.body
      })
      return res
    })
  }) as FastifyInstance['inject']
}

/** the check of each server process by its base URL (test/peers/server-process.ts) */
const servers = new Map<string, (r: SeenResponse) => void>()

/**
 * The same check for a server process the test started (its answers come over a socket, to
 * test/peers/server-process.ts call()): its document is read once, now, while it is healthy.
 * A mismatch fails `t` as it arrives, not call()'s caller: the fault tests record what call()
 * throws as a failed request.
 */
export async function checkResponsesOf (t: Tap, base: string): Promise<void> {
  const res = await fetch(`${base}${API_PREFIX}/openapi.json`)
  if (res.status !== 200) throw new Error(`${base}${API_PREFIX}/openapi.json answered ${res.status}: ${await res.text()}`)
  const doc = await res.json() as OpenApiDocument
  servers.set(base, checker(t, () => doc, new Set()))
  t.teardown(() => { servers.delete(base) })
}

/** a response of a server process registered by checkResponsesOf (any other passes unchecked) */
export function checkServerResponse (base: string, r: SeenResponse): void {
  servers.get(base)?.(r)
}
