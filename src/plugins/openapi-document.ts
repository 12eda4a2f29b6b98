// What the OpenAPI document says beyond what @fastify/swagger takes from the route schemas, for code
// generators (docs/decisions/programs.md, OpenAPI document for generators): a description and an
// example per answer, the headers of the answers (read from each route's config:
// src/plugins/route-config.ts), the API-key scope of routes with an apiKeyScope, the webhooks
// (schemas/webhooks.ts) and each event of the stream (schemas/sse.ts). Every schema ends normalized
// and its named shapes in components (src/plugins/openapi-schemas.ts).
import type { TSchema } from '@sinclair/typebox'
import { reasonsByStatus, statusMessages, statusReasons } from '../errors.ts'
import { GeneralErrorSchema } from '../../schemas/common.ts'
import { SSE_RETRY_MS } from '../../schemas/sse.ts'
import { WEBHOOK_EVENTS } from '../../schemas/webhooks.ts'
import { hoistTitled, normalizeSchema, SCHEMA_REF } from './openapi-schemas.ts'
import type { ApiKeyScope } from '../../schemas/api-keys.ts'

type Json = Record<string, unknown>

/** what the document needs of a route's config */
export interface RouteTraits {
  apiKeyScope?: ApiKeyScope
  idempotent?: boolean
  freshProof?: boolean
  sessionCookie?: boolean
  /** the route opts out of every rate limit (`config.rateLimit: false`, the health probes): no RateLimit-* headers */
  unlimited?: boolean
  /** the route's 200 is an event stream: its events (schemas/sse.ts, SSE_STREAMS) */
  eventStream?: Readonly<Record<string, TSchema>>
}

export interface Operation {
  operationId?: string
  description?: string
  security?: Array<Record<string, string[]>>
  parameters?: Json[]
  requestBody?: { content?: Record<string, Json> }
  responses: Record<string, { description: string, headers?: Json, content?: Record<string, Json> }>
}

export interface Document {
  openapi: string
  servers?: Json[]
  paths: Record<string, Record<string, Operation>>
  webhooks?: Record<string, Record<string, Operation>>
  components: { schemas?: Record<string, unknown>, headers?: Record<string, Json>, securitySchemes?: Record<string, Json> }
}

/** what an answer of each status means, when the route's schema does not say */
const DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  304: 'Not modified: the ETag sent in If-None-Match still matches',
  400: 'Bad request: a parameter or the body does not match the schema, or the body is not valid JSON',
  401: 'Access denied: no valid credentials',
  402: 'Payment required: no report credit left',
  403: 'Access denied: the credentials do not allow this (another user\'s resource, a refused proof, an API key without the scope, a proof too old: re-authentication required)',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Body too large',
  414: 'URI too long: a path parameter over 100 characters',
  415: 'Unsupported media type',
  422: 'Unprocessable: the Idempotency-Key was used with another request',
  429: 'Too many requests: retry after Retry-After seconds',
  500: 'Internal error',
  502: 'Bad gateway: an outbound request failed',
  503: 'Service unavailable: a dependency (the database) does not answer, or the instance is shutting down'
}

const header = (description: string, schema: Json, required = false): Json => ({ description, required, schema })

/** response headers, by component name */
export const HEADERS: Record<string, Json> = {
  RetryAfter: header('seconds to wait before trying again', { type: 'integer', minimum: 1 }, true),
  SetSessionCookie: header('sets (sign-in, refresh) or clears (sign-out) the session cookie `sid` (HttpOnly, Secure, SameSite=Lax)', { type: 'string' }),
  RateLimitLimit: header('the requests the budget that counted this one allows per window: an API key\'s own (RATE_LIMIT_API_KEY), else the user\'s or the client address\'s (RATE_LIMIT_GLOBAL), or a route\'s own', { type: 'integer' }),
  RateLimitRemaining: header('the requests left in this window of that budget', { type: 'integer' }),
  RateLimitReset: header('seconds until the window of that budget starts afresh', { type: 'integer' }),
  WwwAuthenticate: header('RFC 6750: `Bearer`, with `error="invalid_token"` when a token was sent and refused', { type: 'string' }, true),
  ETag: header('the version of the representation: send it back in If-None-Match for a 304', { type: 'string' }, true),
  Location: header('the path of the created resource', { type: 'string', format: 'uri-reference' }, true),
  IdempotentReplayed: header('`true` when this is the stored answer to an earlier request with the same Idempotency-Key', { type: 'string', enum: ['true'] })
}
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` })

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'a retry with the same key (same user, within 24 h) gets the first answer again, with Idempotent-Replayed: true',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' }
}

/** the reasons each error status may carry, listed in its answer's description */
const REASONS_BY_STATUS = reasonsByStatus()

/** the errors a plugin acting on a route config answers, whether or not the route's schema lists them */
function impliedErrors (traits: RouteTraits): number[] {
  const codes: number[] = []
  // a key without the scope; the key's own rate limit
  if (traits.apiKeyScope) codes.push(403, 429)
  // re-authentication required
  if (traits.freshProof) codes.push(403)
  // the key's first request still runs; the key reused with another request
  if (traits.idempotent) codes.push(409, 422)
  return codes
}

function describeResponses (op: Operation, traits: RouteTraits): void {
  for (const code of impliedErrors(traits)) {
    op.responses[code] ??= { description: 'Default Response', content: { 'application/json': { schema: { $ref: `${SCHEMA_REF}GeneralError` } } } }
  }
  for (const [status, response] of Object.entries(op.responses)) {
    const code = Number(status)
    if (response.description === 'Default Response') response.description = DESCRIPTIONS[status] ?? statusMessages[code] ?? `HTTP ${status}`
    const json = response.content?.['application/json']
    if (code >= 400 && (json?.schema as Json | undefined)?.$ref === `${SCHEMA_REF}GeneralError`) {
      json!.example = { code, message: statusMessages[code] ?? 'error', reason: statusReasons[code] ?? 'error' }
      const reasons = REASONS_BY_STATUS[code]
      if (reasons) response.description += `. \`reason\`: ${reasons.map((r) => `\`${r}\``).join(', ')}`
    }
    const headers: Json = { ...response.headers }
    if (code === 429) headers['Retry-After'] = headerRef('RetryAfter')
    if (code === 401) headers['WWW-Authenticate'] = headerRef('WwwAuthenticate')
    if (code === 201) headers.Location = headerRef('Location')
    // a route that answers 304 sends the ETag it compares with its 200
    if ((code === 200 || code === 304) && op.responses[304]) headers.ETag = headerRef('ETag')
    if (traits.sessionCookie && code >= 200 && code < 300) headers['Set-Cookie'] = headerRef('SetSessionCookie')
    if (traits.idempotent && code >= 200 && code < 300) headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed')
    if (!traits.unlimited) {
      headers['RateLimit-Limit'] = headerRef('RateLimitLimit')
      headers['RateLimit-Remaining'] = headerRef('RateLimitRemaining')
      headers['RateLimit-Reset'] = headerRef('RateLimitReset')
    }
    if (Object.keys(headers).length > 0) response.headers = headers
  }
  if (traits.idempotent && !op.parameters?.some((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key')) {
    op.parameters = [...(op.parameters ?? []), IDEMPOTENCY_KEY]
  }
  const notes = [
    traits.apiKeyScope && `An API key needs the scope \`${traits.apiKeyScope}\`.`,
    traits.freshProof && 'Needs a proof of the owner within STEP_UP_MAX_AGE_S (else 403 `re-authentication required`; POST /auth/reauthenticate renews it).'
  ]
  if (notes.some(Boolean)) op.description = [op.description, ...notes].filter(Boolean).join(' ')
}

/** the stream's events, one item each: OpenAPI 3.2's `itemSchema` of text/event-stream */
function eventStreamItems (events: Readonly<Record<string, TSchema>>): Json {
  const id = { type: 'string', description: 'the event\'s sequence number (absent on a first status without one and on end): send it back as Last-Event-ID' }
  return {
    description: `One item of the stream: first \`retry: ${SSE_RETRY_MS}\` alone, then events; \`: ping\` comment lines carry nothing.`,
    oneOf: [
      { type: 'object', required: ['retry'], properties: { retry: { type: 'integer', enum: [SSE_RETRY_MS], description: 'ms an EventSource waits before reconnecting' } } },
      ...Object.entries(events).map(([name, schema]) => ({
        type: 'object',
        required: ['event', 'data'],
        properties: {
          id,
          event: { type: 'string', enum: [name] },
          data: { type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: `${SCHEMA_REF}${(schema as TSchema).title}` } }
        }
      }))
    ]
  }
}

/** a TypeBox schema as the document writes it (no symbols, no functions), with its named shapes in components */
function documentSchema (schema: TSchema, components: Record<string, unknown>): unknown {
  return hoistTitled(normalizeSchema(JSON.parse(JSON.stringify(schema))), components)
}

/** `report.ready` -> `onReportReady` */
const webhookOperationId = (type: string) => `on${type.split(/[._-]/).map((w) => w[0].toUpperCase() + w.slice(1)).join('')}`

/** every webhook event: the POST the service makes to a subscribed endpoint */
function webhooks (components: Record<string, unknown>): Record<string, Record<string, Operation>> {
  const headers = [
    { name: 'webhook-id', description: 'the delivery\'s id, the same on every retry: deduplicate with it', schema: { type: 'string' } },
    { name: 'webhook-timestamp', description: 'Unix seconds when this attempt was signed: refuse one too far from now', schema: { type: 'integer' } },
    { name: 'webhook-signature', description: '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` under the endpoint\'s secret; several, space-separated, while a rotated secret is still valid', schema: { type: 'string' } }
  ].map((h) => ({ ...h, in: 'header', required: true }))
  const out: Record<string, Record<string, Operation>> = {}
  for (const [type, schema] of Object.entries(WEBHOOK_EVENTS)) {
    out[type] = {
      post: {
        operationId: webhookOperationId(type),
        summary: `The ${type} event`,
        description: `${String(schema.description ?? '')}. Standard Webhooks: sent to each endpoint subscribed to \`${type}\`, retried on WEBHOOK_RETRY_SCHEDULE until an answer is 2xx.`,
        tags: ['webhooks'],
        security: [],
        parameters: headers,
        requestBody: { required: true, content: { 'application/json': { schema: documentSchema(schema, components) } } },
        responses: {
          '2XX': { description: 'Delivered: any 2xx answer, the body is ignored' },
          410: { description: 'Gone: the endpoint is disabled, nothing more is sent to it' }
        }
      } as Operation
    }
  }
  return out
}

/** every schema of an operation, normalized and with its named shapes in components */
function normalizeOperation (op: Operation, components: Record<string, unknown>): void {
  const fix = (s: unknown) => hoistTitled(normalizeSchema(s), components)
  for (const p of op.parameters ?? []) if (p.schema) p.schema = fix(p.schema)
  for (const media of Object.values(op.requestBody?.content ?? {})) if (media.schema) media.schema = fix(media.schema)
  for (const response of Object.values(op.responses)) {
    for (const media of Object.values(response.content ?? {})) {
      if (media.schema) media.schema = fix(media.schema)
      if (media.itemSchema) media.itemSchema = fix(media.itemSchema)
    }
  }
}

/** the finished document; `traits` names each operation's route config by `method path` (`get /api/v1/report/{id}`) */
export function finishDocument (doc: Document, traits: Map<string, RouteTraits>, servers: Json[]): Document {
  const components: Record<string, unknown> = {}
  // the shape of every error answer, those a route config implies included
  documentSchema(GeneralErrorSchema, components)
  // shared schemas (app.addSchema) keep their key unless a title names them
  for (const [key, s] of Object.entries(doc.components.schemas ?? {})) {
    const fixed = hoistTitled(normalizeSchema(s), components) as Json
    if (!('$ref' in fixed)) components[key] = fixed
  }
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const t = traits.get(`${method} ${path}`) ?? {}
      if (t.eventStream && op.responses[200]) {
        for (const schema of Object.values(t.eventStream)) documentSchema(schema, components)
        op.responses[200].content = { 'text/event-stream': { itemSchema: eventStreamItems(t.eventStream) } }
      }
      normalizeOperation(op, components)
      describeResponses(op, t)
    }
  }
  doc.webhooks = webhooks(components)
  doc.servers = servers
  doc.components.schemas = Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)))
  // only what an operation uses (the rate-limit headers come with the first apiKeyScope)
  const text = JSON.stringify([doc.paths, doc.webhooks])
  doc.components.headers = Object.fromEntries(Object.entries(HEADERS).filter(([name]) => text.includes(`"#/components/headers/${name}"`)))
  const schemes = doc.components.securitySchemes ?? {}
  for (const name of Object.keys(schemes)) if (!text.includes(`{"${name}":[`)) delete schemes[name]
  return doc
}
