// The OpenAPI document (GET /api/v1/openapi.json, OpenAPI 3.1; the same in 3.2 at
// /api/v1/openapi-3.2.json) and the docs UI (/api/v1/docs): the document describes every API route,
// with both security schemes. Every response the suite receives is checked
// against it (test/response-check.ts, applied by build()); here a representative run reaches every
// kind of status, and every operation is sent what Fastify refuses before any handler runs.
import t from '../tap.ts'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { build, signedInUser } from '../helper.ts'
import { createAjv, validatedOperations } from '../response-check.ts'
import { seedReportData } from '../reports/seed.ts'
import { waitForStatus } from '../reports/report-wait.ts'

type Doc = {
  openapi: string
  info: { title: string, version: string }
  paths: Record<string, Record<string, { security?: unknown[], responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>
  components: { securitySchemes: Record<string, Record<string, unknown>>, schemas?: Record<string, unknown> }
}

const API = '/api/v1'
const INGEST_TOKEN = 'ingest-token-0123456789abcdef'
const METHODS = ['get', 'post', 'put', 'patch', 'delete']

/** every route of the app, as `METHOD /path`, read back from Fastify's route tree */
function registeredRoutes (app: FastifyInstance): Set<string> {
  const out = new Set<string>()
  const stack: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false, includeMeta: false }).split('\n')) {
    const m = /^((?:[│ ] {3})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (!m) continue
    const depth = m[1].length / 4
    stack.length = depth
    stack.push(m[2])
    // a prefix's root route answers with and without the trailing slash; the document names it without
    if (m[3]) for (const method of m[3].split(', ')) out.add(`${method} ${stack.join('').replace(/(.)\/$/, '$1')}`)
  }
  return out
}

/** Fastify's `/x/:id` as OpenAPI's `/x/{id}` */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

t.test('the OpenAPI document, the docs UI, and responses that match the document', async (t) => {
  const app = await build(t, {
    WORKERS: '1',
    INGEST_TOKEN,
    // billing on, so that its routes get as far as Fastify's own refusals; nothing here reaches Stripe
    // (nothing listens on the discard port)
    STRIPE_SECRET_KEY: 'sk_test_openapi',
    STRIPE_WEBHOOK_SECRET: 'whsec_openapi',
    STRIPE_PRICE_ID: 'price_openapi',
    STRIPE_API_URL: 'http://127.0.0.1:9'
  })

  const res = await app.inject({ url: `${API}/openapi.json` })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /application\/json/)
  const doc = res.json() as Doc

  t.test('shape of an OpenAPI 3.1 document', async (t) => {
    t.match(doc.openapi, /^3\.1\.\d+$/, 'OpenAPI 3.1.*: the versions openapi-python-client reads')
    t.ok(doc.info.title && doc.info.version, 'info.title and info.version')
    t.same(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer', description: doc.components.securitySchemes.bearer.description })
    t.match(doc.components.securitySchemes.cookie, { type: 'apiKey', in: 'cookie', name: 'sid' })
    for (const [path, item] of Object.entries(doc.paths)) {
      t.ok(path.startsWith('/'), `${path} is absolute`)
      for (const [method, op] of Object.entries(item)) {
        t.ok(METHODS.includes(method), `${method} ${path}: an HTTP method`)
        t.ok(Object.keys(op.responses).length > 0, `${method} ${path}: has responses`)
        for (const status of Object.keys(op.responses)) t.match(status, /^[1-5]\d\d$/, `${method} ${path} ${status}`)
        for (const s of op.security ?? []) {
          for (const name of Object.keys(s as object)) t.ok(doc.components.securitySchemes[name], `${method} ${path}: scheme ${name} is declared`)
        }
        // every error status an API route documents is the GeneralError shape
        for (const [status, r] of Object.entries(op.responses)) {
          if (Number(status) >= 400 && path !== `${API}/health` && path !== `${API}/health/ready`) {
            t.same(r.content?.['application/json']?.schema, { $ref: '#/components/schemas/GeneralError' }, `${method} ${path} ${status} is a GeneralError`)
          }
        }
      }
    }
    t.match(doc.components.schemas?.GeneralError, { type: 'object', required: ['code', 'message'] }, 'the GeneralError shape')
    // the whole document compiles as JSON Schema 2020-12 wherever it holds a schema, its $refs resolved in components
    const ajv = createAjv()
    const components = { schemas: doc.components.schemas }
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        for (const r of Object.values(op.responses)) {
          for (const media of Object.values(r.content ?? {})) if (media.schema) ajv.compile({ ...media.schema as object, components })
        }
      }
    }
  })

  t.test('every API route is in the document, and nothing else', async (t) => {
    const routes = [...registeredRoutes(app)]
      .filter((r) => r.split(' ')[1].startsWith(`${API}/`))
      .filter((r) => !r.startsWith('HEAD ') && !r.startsWith('OPTIONS '))
      // the document and the UI that shows it are not part of the API
      .filter((r) => !r.includes(`${API}/docs`) && !r.endsWith(`${API}/openapi.json`) && !r.endsWith(`${API}/openapi-3.2.json`))
    t.ok(routes.length >= 25, `${routes.length} routes found`)
    const documented = new Set<string>()
    for (const [path, item] of Object.entries(doc.paths)) for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`)
    for (const r of routes) {
      const [method, url] = r.split(' ')
      t.ok(documented.has(`${method} ${toOpenApiPath(url)}`), `${r} is documented`)
    }
    t.equal(documented.size, routes.length, 'no documented path without a route')
    t.ok(documented.has(`POST ${API}/ingest`), 'ingest, present when INGEST_TOKEN is set')
  })

  t.test('the docs UI loads under the service CSP', async (t) => {
    const page = await app.inject({ url: `${API}/docs/` })
    t.equal(page.statusCode, 200)
    t.match(page.headers['content-type'], /text\/html/)
    const csp = String(page.headers['content-security-policy'])
    t.match(csp, /script-src 'self'/)
    // the page's scripts and styles are files of the same origin: no inline <script> body to allow
    t.notMatch(page.body, /<script>(?!\s*<\/script>)[^<]/, 'no inline script')
    for (const src of page.body.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const url = new URL(src[1], `http://localhost${API}/docs/`).pathname
      const asset = await app.inject({ url })
      t.equal(asset.statusCode, 200, `${url} loads`)
    }
    const init = await app.inject({ url: `${API}/docs/static/swagger-initializer.js` })
    t.equal(init.statusCode, 200)
    const json = await app.inject({ url: `${API}/docs/json` })
    t.equal(json.statusCode, 200, 'the document the UI fetches, same origin (connect-src self)')
  })

  t.test('behind a TLS proxy (no ALLOW_HTTP) the docs load over HTTPS, and the whole page fits the global rate limit', async (t) => {
    const proxied = await build(t, { LOG_LEVEL: 'silent', ALLOW_HTTP: 'false', TRUST_PROXY: '10.0.0.1' }, { database: app.database })
    const via = (url: string, proto: string) => proxied.inject({ url, remoteAddress: '10.0.0.1', headers: { 'x-forwarded-proto': proto } })
    const page = await via(`${API}/docs/`, 'https')
    t.equal(page.statusCode, 200)
    for (const src of page.body.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const url = new URL(src[1], `https://localhost${API}/docs/`).pathname
      t.equal((await via(url, 'https')).statusCode, 200, `${url} over HTTPS`)
    }
    t.equal((await via(`${API}/openapi.json`, 'https')).statusCode, 200)
    t.equal((await via(`${API}/docs/json`, 'https')).statusCode, 200)
    t.equal((await via(`${API}/openapi.json`, 'http')).statusCode, 403, 'the HTTPS guard still applies')
    t.equal((await via(`${API}/docs/`, 'http')).statusCode, 403)
  })

  t.test('responses of every kind validate against the document', async (t) => {
    // app.inject is checked by build(): a response that does not match the document fails this test
    await seedReportData(app.db)
    const u = await signedInUser(app)
    const json = { 'content-type': 'application/json' }

    // auth
    t.equal((await app.inject({ method: 'POST', url: `${API}/auth/signup`, payload: { email: `oa-${Date.now()}@example.com`, password: 'correct horse battery staple', token: 'x' } })).statusCode, 200)
    t.equal((await app.inject({ method: 'POST', url: `${API}/auth/signup`, payload: { email: 'not-an-email', password: 1 } })).json().status, 'error', 'a form endpoint answers 200 with a field error')
    t.equal((await app.inject({ method: 'POST', url: `${API}/auth/signin`, payload: { email: u.email, password: u.password, token: true } })).statusCode, 200)
    t.equal((await app.inject({ method: 'POST', url: `${API}/auth/signin`, payload: { email: u.email, password: 'wrong password here' } })).json().status, 'error')
    t.equal((await app.inject({ method: 'POST', url: `${API}/auth/signin`, headers: { 'content-type': 'text/plain' }, payload: 'hello' })).statusCode, 415)
    t.equal((await app.inject({ method: 'POST', url: `${API}/auth/signin`, headers: json, payload: JSON.stringify({ email: u.email, password: 'x'.repeat(2 * 1024 * 1024) }) })).statusCode, 413)
    t.equal((await app.inject({ url: `${API}/auth/info`, headers: u.auth })).statusCode, 200)
    t.equal((await app.inject({ url: `${API}/auth/info` })).statusCode, 401)
    t.equal((await app.inject({ method: 'POST', url: `${API}/auth/token/refresh`, headers: { cookie: u.cookie, origin: new URL(app.config.publicUrl).origin } })).statusCode, 200)
    t.equal((await app.inject({ method: 'POST', url: `${API}/auth/token/refresh` })).statusCode, 401)
    t.equal((await app.inject({ url: `${API}/health` })).statusCode, 200)
    t.equal((await app.inject({ url: `${API}/health/ready` })).statusCode, 200)

    // reports
    const created = await app.inject({ method: 'POST', url: `${API}/report`, headers: u.auth, payload: { profiles: [{ source: 'ig', username: 'jdoe' }] } })
    t.equal(created.statusCode, 201)
    const id = created.json().id as string
    t.equal((await app.inject({ method: 'POST', url: `${API}/report`, headers: u.auth, payload: { profiles: 'none' } })).statusCode, 400)
    t.equal((await app.inject({ method: 'POST', url: `${API}/report`, headers: { ...u.auth, 'content-type': 'text/plain' }, payload: 'x' })).statusCode, 415)
    t.equal((await app.inject({ method: 'POST', url: `${API}/report`, headers: { ...u.auth, ...json }, payload: JSON.stringify({ profiles: ['x'.repeat(2 * 1024 * 1024)] }) })).statusCode, 413)
    t.equal((await app.inject({ url: `${API}/report`, headers: u.auth })).statusCode, 200)
    t.equal((await app.inject({ url: `${API}/report/${id}`, headers: u.auth })).statusCode, 200, 'a draft')
    t.equal((await app.inject({ method: 'POST', url: `${API}/report/${id}/generate`, headers: u.auth })).statusCode, 202)
    const ready = await waitForStatus(app, u.auth, id, ['ready', 'failed'])
    t.equal(ready.json().status, 'ready')
    t.equal((await app.inject({ url: `${API}/report/${id}`, headers: u.auth })).statusCode, 200, 'ready')
    t.equal((await app.inject({ url: `${API}/report/${id}`, headers: { ...u.auth, 'if-none-match': ready.headers.etag as string } })).statusCode, 304)
    t.equal((await app.inject({ url: `${API}/report/${id}/interests?source=ig`, headers: u.auth })).statusCode, 200)
    t.equal((await app.inject({ url: `${API}/report/${id}/friends?limit=1`, headers: u.auth })).statusCode, 200)
    t.equal((await app.inject({ url: `${API}/report/${id}/diffs?source=ig`, headers: u.auth })).statusCode, 200)
    t.equal((await app.inject({ url: `${API}/report/${id}/diffs?limit=0`, headers: u.auth })).statusCode, 400)
    t.equal((await app.inject({ url: `${API}/report/00000000-0000-4000-8000-000000000000`, headers: u.auth })).statusCode, 404)
    const other = await signedInUser(app)
    t.equal((await app.inject({ url: `${API}/report/${id}`, headers: other.auth })).statusCode, 403)
    t.equal((await app.inject({ url: `${API}/report/${id}` })).statusCode, 401)
    t.equal((await app.inject({ method: 'DELETE', url: `${API}/report/${id}`, headers: u.auth })).statusCode, 204)

    const seen = [...validatedOperations(app)]
    for (const status of [200, 201, 202, 204, 304, 400, 401, 403, 404, 413, 415]) {
      t.ok(seen.some((s) => s.endsWith(` ${status}`)), `a ${status} was validated`)
    }
  })

  t.test('what Fastify refuses before any handler runs is documented on every operation', async (t) => {
    // a bad or over-long path parameter (the router), a body it cannot parse (any POST or DELETE,
    // whether or not the route reads one): schemas/common.ts PARAM_ERRORS and BODY_ERRORS. Each
    // operation gets past what comes before (credentials, the Origin check of refresh), so the
    // answer is Fastify's own refusal, and the response check (build()) holds it to the document.
    const u = await signedInUser(app)
    const origin = new URL(app.config.publicUrl).origin
    const before = validatedOperations(app).size
    let sent = 0
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) {
        const M = method.toUpperCase() as InjectOptions['method']
        const at = (param: string) => path.replace(/\{[^}]+\}/g, param)
        const headers = { origin, ...(path === `${API}/ingest` ? { authorization: `Bearer ${INGEST_TOKEN}` } : u.auth) }
        const json = { ...headers, 'content-type': 'application/json' }
        const cases: Array<[InjectOptions, number]> = []
        if (path.includes('{')) cases.push([{ url: at('%zz') }, 400], [{ url: at('a'.repeat(101)) }, 414])
        if (M !== 'GET') {
          const url = at('00000000-0000-4000-8000-000000000000')
          // the webhook takes any media type as raw bytes (their signature is checked): no 415 there,
          // the missing Stripe-Signature header is refused instead; ingest takes NDJSON only
          const textStatus = path === `${API}/billing/webhook` ? 400 : 415
          const jsonStatus = (status: number) => path === `${API}/ingest` ? 415 : status
          cases.push([{ url, headers: { ...headers, 'content-type': 'text/plain' }, payload: 'x' }, textStatus],
            [{ url, headers: json, payload: '{' }, jsonStatus(400)], [{ url, headers: json, payload: '' }, jsonStatus(400)],
            [{ url, headers: json, payload: JSON.stringify('x'.repeat(1024 * 1024)) }, jsonStatus(413)])
        }
        for (const [c, status] of cases) {
          const res = await app.inject({ method: M, headers, ...c })
          t.equal(res.statusCode, status, `${M} ${path} ${String(c.url).slice(0, 60)} ${String(c.headers?.['content-type'] ?? '')}: ${res.json().message}`)
          sent++
        }
      }
    }
    t.ok(sent > 40, `${sent} requests`)
    const seen = [...validatedOperations(app)]
    t.ok(seen.length > before, 'their answers were checked against the document')
    for (const status of [400, 413, 414, 415]) t.ok(seen.some((s) => s.endsWith(` ${status}`)), `a ${status} was validated`)
  })
})
