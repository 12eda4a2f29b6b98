// The OpenAPI document as code generators read it (docs/decisions/programs.md, OpenAPI document for
// generators): OpenAPI 3.1 at /api/v1/openapi.json (3.2 at /api/v1/openapi-3.2.json), every operation
// named (a unique operationId) and secured (security declared, one bearer scheme), every answer
// described, one kind of body per answer (JSON, text or bytes), named shapes as components behind
// $refs, one enum per union of values, the headers each route's config implies, servers, the
// webhooks and the stream's events. Every route of
// the app is held to it, so a new route without an operationId or a security declaration fails here.
// A small app of its own checks what only a route config can ask (an API key's scope).
import t from '../tap.ts'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import { Type } from '@sinclair/typebox'
import { build } from '../helper.ts'
import openApiPlugin from '../../src/plugins/openapi.ts'
import { normalizeSchema } from '../../src/plugins/openapi-schemas.ts'
import { WEBHOOK_EVENT_TYPES } from '../../schemas/webhooks.ts'
import { errorResponses } from '../../schemas/common.ts'
import '../../src/plugins/route-config.ts'

type Json = Record<string, unknown>
interface Response { description?: string, headers?: Record<string, { $ref?: string }>, content?: Record<string, { schema?: Json, itemSchema?: Json, 'x-itemSchema'?: Json, example?: Json }> }
interface Operation {
  operationId?: string
  description?: string
  security?: Array<Record<string, string[]>>
  parameters?: Array<{ name: string, in: string, required?: boolean }>
  requestBody?: { content: Record<string, { schema?: Json }> }
  responses: Record<string, Response>
}
interface Doc {
  openapi: string
  servers?: Array<{ url: string }>
  paths: Record<string, Record<string, Operation>>
  webhooks?: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Json>, headers?: Record<string, Json>, securitySchemes: Record<string, Json> }
}

const API = '/api/v1'

/** every operation of the document's paths and webhooks, as `METHOD where` */
function operations (doc: Doc): Array<[string, Operation]> {
  const out: Array<[string, Operation]> = []
  for (const [path, item] of Object.entries(doc.paths)) for (const [m, op] of Object.entries(item)) out.push([`${m.toUpperCase()} ${path}`, op])
  for (const [name, item] of Object.entries(doc.webhooks ?? {})) for (const [m, op] of Object.entries(item)) out.push([`${m.toUpperCase()} webhook ${name}`, op])
  return out
}

/** every object in `value`, with its JSON pointer */
function * objects (value: unknown, at = '#'): Generator<[string, Json]> {
  if (Array.isArray(value)) { for (const [i, v] of value.entries()) yield * objects(v, `${at}/${i}`); return }
  if (typeof value !== 'object' || value === null) return
  yield [at, value as Json]
  for (const [k, v] of Object.entries(value)) yield * objects(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)
}

const resolve = (doc: Doc, ref: string): unknown =>
  ref.slice(2).split('/').reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc)

/** a union member that is one value: `{type?, enum: [v]}`, `{const}` or `{type: 'null'}` */
const oneValue = (s: Json) => (Array.isArray(s.enum) && s.enum.length === 1) || 'const' in s || s.type === 'null'

t.test('the app\'s document', async (t) => {
  const app = await build(t, {
    INGEST_TOKEN: 'ingest-token-0123456789abcdef',
    STRIPE_SECRET_KEY: 'sk_test_openapi',
    STRIPE_WEBHOOK_SECRET: 'whsec_openapi',
    STRIPE_PRICE_ID: 'price_openapi',
    STRIPE_API_URL: 'http://127.0.0.1:9'
  })
  const doc = (await app.inject({ url: `${API}/openapi.json` })).json() as Doc
  const ops = operations(doc)
  t.ok(ops.length > 40, `${ops.length} operations`)

  t.test('every operation has a unique camelCase operationId', async (t) => {
    const seen = new Map<string, string>()
    for (const [where, op] of ops) {
      t.match(op.operationId, /^[a-z][A-Za-z0-9]+$/, `${where}: operationId ${op.operationId}`)
      if (op.operationId === undefined) continue
      t.notOk(seen.has(op.operationId), `${where}: ${op.operationId} is not also ${seen.get(op.operationId)}`)
      seen.set(op.operationId, where)
    }
    for (const [where, id] of [['POST /report', 'createReport'], ['GET /report/{id}', 'getReport'], ['GET /report', 'listReports'],
      ['POST /report/{id}/generate', 'generateReport'], ['DELETE /report/{id}', 'deleteReport'], ['POST /auth/signin', 'signIn'],
      ['POST /auth/signup', 'signUp'], ['POST /auth/token/refresh', 'refreshToken'], ['POST /auth/signout', 'signOut'], ['GET /auth/info', 'getAuthInfo']]) {
      const [method, path] = where.split(' ')
      t.equal(doc.paths[`${API}${path}`][method.toLowerCase()].operationId, id, where)
    }
  })

  t.test('every operation declares its security, with declared schemes', async (t) => {
    for (const [where, op] of ops) {
      t.ok(Array.isArray(op.security), `${where}: security declared`)
      for (const requirement of op.security ?? []) {
        for (const name of Object.keys(requirement)) t.ok(doc.components.securitySchemes[name], `${where}: scheme ${name} is declared`)
      }
    }
    const security = (method: string, path: string) => doc.paths[`${API}${path}`][method].security
    t.same(security('post', '/auth/signin'), [], 'sign-in is public')
    t.same(security('get', '/health'), [], 'health is public')
    t.same(security('get', '/auth/info'), [{ bearer: [] }])
    t.same(security('post', '/auth/token/refresh'), [{ cookie: [] }], 'refresh takes the session cookie')
    t.same(security('get', '/sse/{reportId}'), [{ bearer: ['reports:read'] }, { cookie: [] }], 'the stream takes a JWT or a key with reports:read, or the cookie')
    t.same(security('get', '/report/{id}/export.csv'), [{ bearer: ['reports:read'] }])
  })

  t.test('OpenAPI 3.1, the version generators read; one bearer scheme, each operation naming it once', async (t) => {
    t.match(doc.openapi, /^3\.1\.\d+$/, `${doc.openapi}: openapi-python-client takes 3.1.* alone`)
    const bearers = Object.entries(doc.components.securitySchemes).filter(([, s]) => s.type === 'http' && s.scheme === 'bearer')
    t.same(bearers.map(([name]) => name), ['bearer'], 'one HTTP bearer scheme: a JWT or an API key')
    t.match(doc.components.securitySchemes.bearer.description, /API key/)
    for (const [where, op] of ops) {
      const names = (op.security ?? []).flatMap((requirement) => Object.keys(requirement))
      t.same(names, [...new Set(names)], `${where}: each scheme once`)
    }
    t.notOk(JSON.stringify(doc).includes('"itemSchema"'), 'no 3.2 field')
  })

  t.test('one kind of body per answer: JSON alone, text, or bytes declared as binary', async (t) => {
    // the one exception: exportReport's format=csv, which the contract has always answered with the
    // CSV; a generated client reads the CSV through exportReportCsv
    const exportReport = `GET ${API}/report/{id}/export`
    for (const [where, op] of ops) {
      for (const [status, r] of Object.entries(op.responses)) {
        const types = Object.keys(r.content ?? {})
        if (types.includes('application/json') && !(where === exportReport && status === '200')) t.same(types, ['application/json'], `${where} ${status}: JSON alone`)
      }
    }
    const exported = doc.paths[`${API}/report/{id}/export`].get.responses
    t.same(Object.keys(exported[200].content ?? {}), ['application/json', 'text/csv'], 'the export: JSON, or with format=csv the CSV')
    const csv = doc.paths[`${API}/report/{id}/export.csv`].get
    t.equal(csv.operationId, 'exportReportCsv')
    t.match(csv.responses[200].content, { 'text/csv': { schema: { type: 'string' } } }, 'the CSV export: text')
    const image = doc.paths[`${API}/images`].get.responses[200].content ?? {}
    t.same(Object.keys(image), ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif'])
    for (const [type, media] of Object.entries(image)) t.same(media.schema, { type: 'string', format: 'binary' }, `${type}: bytes`)
  })

  t.test('every answer has a description of its own, and an error its status in its example', async (t) => {
    for (const [where, op] of ops) {
      for (const [status, r] of Object.entries(op.responses)) {
        t.ok(r.description && r.description !== 'Default Response', `${where} ${status}: ${r.description}`)
        const json = r.content?.['application/json']
        if (json?.schema?.$ref === '#/components/schemas/GeneralError') {
          t.equal(json.example?.code, Number(status), `${where} ${status}: the example's code`)
          t.type(json.example?.message, 'string')
        }
      }
    }
    const notFound = doc.paths[`${API}/report/{id}`].get.responses[404].content?.['application/json'].example
    t.has(notFound, { code: 404, message: 'not found' })
    const limited = doc.paths[`${API}/report/{id}`].get.responses[429].content?.['application/json'].example
    t.has(limited, { code: 429, message: 'too many requests' })
  })

  t.test('named shapes are components behind $refs, each used, each $ref resolving', async (t) => {
    for (const name of ['GeneralError', 'FormResult', 'Report', 'ReportSummary', 'ReportList', 'CreatedReport', 'SigninBody', 'AuthInfo', 'Source', 'ReportStatus']) {
      t.ok(doc.components.schemas[name], `components.schemas.${name}`)
    }
    const refs = new Set<string>()
    for (const [at, node] of objects(doc)) {
      if (typeof node.$ref !== 'string') continue
      refs.add(node.$ref)
      t.ok(resolve(doc, node.$ref), `${at}: ${node.$ref} resolves`)
    }
    for (const name of Object.keys(doc.components.schemas)) t.ok(refs.has(`#/components/schemas/${name}`), `${name} is used`)
    // every JSON object body, asked or answered, is a named shape
    for (const [where, op] of ops) {
      const bodies = [op.requestBody?.content['application/json']?.schema, ...Object.values(op.responses).map((r) => r.content?.['application/json']?.schema)]
      for (const schema of bodies) {
        if (schema === undefined || schema.type === 'null') continue
        t.match(schema, { $ref: /^#\/components\/schemas\/[A-Za-z]+$/ }, `${where}: a JSON body is a component (give its schema a title)`)
      }
    }
    t.notOk(JSON.stringify(doc).includes('"$id"'), 'no $id left in the document')
  })

  t.test('a union of single values is one enum', async (t) => {
    for (const [at, node] of objects(doc)) {
      for (const combinator of ['anyOf', 'oneOf']) {
        const members = node[combinator]
        if (!Array.isArray(members)) continue
        t.notOk(members.every((m) => oneValue(m as Json)), `${at}/${combinator}: not only single values`)
      }
    }
    t.match(doc.components.schemas.Source, { type: 'string', enum: ['ig', 'fb', 'tt', 'tw', 'li'] })
    t.match(doc.components.schemas.SseStatusData, { properties: { stage: { type: ['string', 'null'], enum: ['queued', 'collecting', 'interests', 'friends', 'diffs', null] } } })
  })

  t.test('headers: Retry-After on 429, Set-Cookie on the cookie routes, Idempotent-Replayed on idempotent routes', async (t) => {
    let limited = 0
    for (const [where, op] of ops) {
      if (!op.responses[429]) continue
      limited++
      t.same(op.responses[429].headers?.['Retry-After'], { $ref: '#/components/headers/RetryAfter' }, `${where} 429`)
    }
    t.ok(limited > 30, `${limited} operations answer 429`)
    t.match(doc.components.headers?.RetryAfter, { required: true, schema: { type: 'integer' } })
    for (const path of ['/auth/signin', '/auth/idp', '/auth/token/refresh', '/auth/signout']) {
      t.same(doc.paths[`${API}${path}`].post.responses[200].headers?.['Set-Cookie'], { $ref: '#/components/headers/SetSessionCookie' }, `${path} 200 sets the cookie`)
    }
    t.notOk(doc.paths[`${API}/auth/info`].get.responses[200].headers?.['Set-Cookie'], '/auth/info sets no cookie')
    for (const [path, status] of [['/report', '201'], ['/report/{id}/generate', '202']]) {
      const op = doc.paths[`${API}${path}`].post
      t.ok(op.responses[status].headers?.['Idempotent-Replayed'], `POST ${path} ${status}: Idempotent-Replayed`)
      t.match(op.parameters?.filter((p) => p.name === 'Idempotency-Key'), [{ in: 'header', required: false }], `POST ${path}: the Idempotency-Key header`)
      for (const s of ['409', '422']) t.match(op.responses[s]?.content?.['application/json'].schema, { $ref: '#/components/schemas/GeneralError' }, `POST ${path} ${s}: the idempotency errors`)
    }
  })

  t.test('servers: PUBLIC_URL, the paths keeping the prefix', async (t) => {
    t.same(doc.servers?.map((s) => s.url), [app.config.publicUrl])
    t.ok(Object.keys(doc.paths).every((p) => p.startsWith(`${API}/`)), 'every path starts with the prefix')
  })

  t.test('webhooks: every event, with the Standard Webhooks headers and the answer expected', async (t) => {
    t.same(Object.keys(doc.webhooks ?? {}).sort(), [...WEBHOOK_EVENT_TYPES].sort())
    for (const [name, item] of Object.entries(doc.webhooks ?? {})) {
      const op = item.post
      t.ok(op, `${name}: a POST`)
      t.same(op.parameters?.map((p) => [p.name, p.in, p.required]), [['webhook-id', 'header', true], ['webhook-timestamp', 'header', true], ['webhook-signature', 'header', true]])
      const ref = op.requestBody?.content['application/json'].schema?.$ref as string
      t.match(resolve(doc, ref), { type: 'object', properties: { type: { enum: [name] }, timestamp: {}, data: {} } }, `${name}: its body`)
      t.ok(op.responses['2XX'], `${name}: a 2xx answer`)
    }
  })

  t.test('the stream: OpenAPI 3.2 itemSchema at openapi-3.2.json, one item per event; x-itemSchema in 3.1', async (t) => {
    const res = await app.inject({ url: `${API}/openapi-3.2.json` })
    t.equal(res.statusCode, 200)
    const doc32 = res.json() as Doc
    t.equal(doc32.openapi, '3.2.0')
    const media = doc32.paths[`${API}/sse/{reportId}`].get.responses[200].content?.['text/event-stream']
    const items = media?.itemSchema?.oneOf as Json[]
    const events = items.map((i) => ((i.properties as Json).event as Json | undefined)?.enum).filter(Boolean)
    t.same(events, [['status'], ['done'], ['end']])
    for (const item of items.filter((i) => (i.properties as Json).data)) {
      t.match((item.properties as Json).data, { type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: /^#\/components\/schemas\/Sse(Status|Done|End)Data$/ } })
    }
    const in31 = doc.paths[`${API}/sse/{reportId}`].get.responses[200].content?.['text/event-stream']
    t.match(in31, { schema: { type: 'string' } }, '3.1: the stream is text')
    t.same(in31?.['x-itemSchema'], media?.itemSchema, '3.1: the same items, under x-itemSchema')
    // otherwise the two documents are one
    const as31 = JSON.parse(JSON.stringify(doc32).replaceAll('"itemSchema"', '"x-itemSchema"')) as Doc
    for (const item of Object.values(as31.paths)) {
      for (const op of Object.values(item)) {
        for (const r of Object.values(op.responses)) for (const m of Object.values(r.content ?? {})) if (m['x-itemSchema']) m.schema = in31?.schema
      }
    }
    t.same({ ...as31, openapi: doc.openapi }, doc, 'the 3.1 document is the 3.2 one with the items moved aside')
  })
})

t.test('what a route config asks: the API key and its scope, the rate-limit headers', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  // the plugin runs after the security headers plugin in the app; nothing of it is needed here
  await app.register(fp(async () => {}, { name: 'security' }))
  await app.register(openApiPlugin, { prefix: API, version: '1.0.0', publicUrl: 'https://pir.test' })
  const Thing = Type.Object({ n: Type.Integer() }, { title: 'Thing' })
  app.get(`${API}/things`, {
    schema: { operationId: 'listThings', security: [{ bearer: [] }], response: { 200: Thing, ...errorResponses(401, 403, 429) } },
    config: { apiKeyScope: 'reports:read' }
  }, async () => ({ n: 1 }))
  app.get(`${API}/other`, { schema: { operationId: 'getOther', security: [{ bearer: [] }], response: { 200: Thing } } }, async () => ({ n: 2 }))
  app.post(`${API}/things`, {
    schema: { operationId: 'createThing', security: [{ bearer: [] }], response: { 201: Thing } },
    config: { freshProof: true, idempotent: true }
  }, async () => ({ n: 3 }))
  await app.ready()
  const doc = app.swagger() as unknown as Doc
  const op = doc.paths[`${API}/things`].get
  t.same(op.security, [{ bearer: ['reports:read'] }], 'the key\'s scope as the role of the bearer requirement')
  t.match(op.description, /`reports:read`/)
  t.notOk(doc.components.securitySchemes.apiKey, 'no second bearer scheme')
  for (const status of ['200', '401', '403', '429']) {
    t.same(Object.keys(op.responses[status].headers ?? {}).filter((h) => h.startsWith('RateLimit-')), ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'], `${status}: the rate-limit headers`)
  }
  t.same(doc.paths[`${API}/other`].get.security, [{ bearer: [] }], 'no key where the config has no scope')
  t.same(Object.keys(doc.paths[`${API}/other`].get.responses[200].headers ?? {}), ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
    'the rate-limit headers all the same: every limited answer carries them')
  t.same(doc.servers, [{ url: 'https://pir.test', description: 'this deployment (PUBLIC_URL)' }])
  const fresh = doc.paths[`${API}/things`].post
  t.same(Object.keys(fresh.responses), ['201', '403', '409', '422'], 'the errors its config implies, though its schema lists none')
  t.match(fresh.responses[403], { description: /re-authentication required/, content: { 'application/json': { schema: { $ref: '#/components/schemas/GeneralError' }, example: { code: 403 } } } })
  t.match(fresh.description, /STEP_UP_MAX_AGE_S/)
  t.ok(fresh.responses[201].headers?.['Idempotent-Replayed'], 'Idempotent-Replayed')
})

t.test('two different schemas under one title: the document is refused', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fp(async () => {}, { name: 'security' }))
  await app.register(openApiPlugin, { prefix: API, version: '1.0.0', publicUrl: 'https://pir.test' })
  app.get(`${API}/a`, { schema: { operationId: 'getA', security: [], response: { 200: Type.Object({ a: Type.String() }, { title: 'Same' }) } } }, async () => ({ a: '' }))
  app.get(`${API}/b`, { schema: { operationId: 'getB', security: [], response: { 200: Type.Object({ b: Type.String() }, { title: 'Same' }) } } }, async () => ({ b: '' }))
  await app.ready()
  t.throws(() => app.swagger(), /two different schemas are titled Same/)
})

t.test('unions of values as the document writes them', async (t) => {
  const of = (s: unknown) => normalizeSchema(JSON.parse(JSON.stringify(s)))
  t.same(of(Type.Union([Type.Literal('a'), Type.Literal('b')], { description: 'd' })), { description: 'd', type: 'string', enum: ['a', 'b'] })
  t.same(of(Type.Union([Type.Literal(1), Type.Literal(2)])), { type: 'number', enum: [1, 2] })
  t.same(of(Type.Union([Type.Literal('a'), Type.Null()])), { type: ['string', 'null'], enum: ['a', null] })
  t.same(of(Type.Literal('x')), { type: 'string', enum: ['x'] })
  t.same(of({ anyOf: [{ type: 'string', enum: ['a'] }, { type: 'integer' }] }), { anyOf: [{ type: 'string', enum: ['a'] }, { type: 'integer' }] }, 'a union with a non-value member stays')
  t.same(of({ anyOf: [{ type: 'string' }, { type: 'null' }] }), { anyOf: [{ type: 'string' }, { type: 'null' }] }, 'a nullable string stays')
})
