// The contract an integrator meets beyond the bodies (docs/integration.md): one rate-limit header
// family, a machine reason beside {code, message}, validation messages that name the property,
// paging the same on every list, one rule for a malformed id, WWW-Authenticate on 401, Location on
// 201, and one OpenAPI document whatever the configuration.
import t from '../tap.ts'
import { build, onPostgres, signedInUser } from '../helper.ts'
import { issueKey } from '../api-keys/support.ts'
import { createReport, readyReport } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { startReceiver } from '../webhooks/receiver.ts'
import { WEBHOOK_EVENT_TYPES } from '../../schemas/webhooks.ts'

const API = '/api/v1'
const limitHeaders = (h: Record<string, unknown>) => Object.keys(h).filter((k) => /ratelimit/.test(k)).sort()

t.test('one rate-limit header family: RateLimit-* on a session\'s, a key\'s and an anonymous answer, and on a 429 with Retry-After', async (t) => {
  const app = await build(t, { RATE_LIMIT_GLOBAL: '3', RATE_LIMIT_API_KEY: '7' })
  const user = await signedInUser(app)
  const family = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']

  const mine = await app.inject({ url: `${API}/report`, headers: user.auth })
  t.equal(mine.statusCode, 200)
  t.same(limitHeaders(mine.headers), family, 'a session\'s answer: the IETF names only, no X-RateLimit-*')
  t.equal(mine.headers['ratelimit-limit'], '3', 'the user\'s budget (RATE_LIMIT_GLOBAL)')

  const key = await issueKey(app, user.auth)
  const program = await app.inject({ url: `${API}/report`, headers: key.auth })
  t.equal(program.statusCode, 200)
  t.same(limitHeaders(program.headers), family, 'a key\'s answer: the same names')
  t.equal(program.headers['ratelimit-limit'], '7', 'the key\'s own budget (RATE_LIMIT_API_KEY)')

  const anonymous = await app.inject({ url: `${API}/client-config` })
  t.same(limitHeaders(anonymous.headers), family, 'an anonymous answer: the same names')

  let refused
  for (let i = 0; i < 5 && refused === undefined; i++) {
    const res = await app.inject({ url: `${API}/report`, headers: user.auth })
    if (res.statusCode === 429) refused = res
  }
  t.ok(refused, 'the user\'s budget runs out')
  t.same(limitHeaders(refused!.headers), family, 'the 429: the same names')
  t.equal(refused!.headers['ratelimit-remaining'], '0')
  t.ok(Number(refused!.headers['retry-after']) >= 1, 'and Retry-After in seconds')
  t.same(refused!.json(), { code: 429, message: 'too many requests', reason: 'rate_limited' })
})

t.test('every error body keeps {code, message} and adds a stable reason', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  await seedReportData(app.db)
  const owner = await signedInUser(app)
  const other = await signedInUser(app)
  const id = await readyReport(app, owner.auth)

  const anonymous = await app.inject({ url: `${API}/report/${id}` })
  t.same(anonymous.json(), { code: 401, message: 'access denied', reason: 'unauthenticated' }, '401 without a token')
  const foreign = await app.inject({ url: `${API}/report/${id}`, headers: other.auth })
  t.same(foreign.json(), { code: 403, message: 'access denied', reason: 'not_owner' }, '403 another user\'s report')
  const again = await app.inject({ method: 'POST', url: `${API}/report/${id}/generate`, headers: owner.auth })
  t.same(again.json(), { code: 403, message: 'access denied', reason: 'already_generated' }, '403 generated already')
  const key = await issueKey(app, owner.auth, { scopes: ['profiles:read'] })
  const scope = await app.inject({ url: `${API}/report/${id}`, headers: key.auth })
  t.same(scope.json(), { code: 403, message: 'access denied', reason: 'scope_missing' }, '403 a key without the scope')
  const unknown = await app.inject({ url: `${API}/report/00000000-0000-4000-8000-000000000000`, headers: owner.auth })
  t.same(unknown.json(), { code: 404, message: 'report not found', reason: 'not_found' })
  const invalid = await app.inject({ url: `${API}/report?offset=-1`, headers: owner.auth })
  t.same([invalid.statusCode, invalid.json().reason], [400, 'validation_failed'])
  const notJson = await app.inject({ method: 'POST', url: `${API}/report`, headers: { ...owner.auth, 'content-type': 'application/json' }, payload: '{' })
  t.same(notJson.json(), { code: 400, message: 'body is not valid JSON', reason: 'invalid_json' })
  const nowhere = await app.inject({ url: `${API}/nowhere`, headers: owner.auth })
  t.same(nowhere.json(), { code: 404, message: 'not found', reason: 'not_found' })
  const watchFirst = await app.inject({ method: 'POST', url: `${API}/report/${await createReport(app, owner.auth)}/watch`, headers: owner.auth })
  t.same(watchFirst.json(), { code: 409, message: 'report not ready', reason: 'report_not_ready' }, '409 a watch of a draft')
})

t.test('validation messages name the property and the allowed values, never the schema\'s words', async (t) => {
  const app = await build(t)
  const user = await signedInUser(app)
  const receiver = await startReceiver(t)

  const unknown = await app.inject({ url: `${API}/report?foo=1`, headers: user.auth })
  t.same([unknown.statusCode, unknown.json().message], [400, "querystring: unknown property 'foo'"])
  const events = await app.inject({ method: 'POST', url: `${API}/webhooks`, headers: user.auth, payload: { url: `${receiver.url}/hook`, events: ['report.done'] } })
  t.same([events.statusCode, events.json().message], [400, `body events.0: must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`])
  const missing = await app.inject({ method: 'POST', url: `${API}/webhooks`, headers: user.auth, payload: { events: ['report.ready'] } })
  t.same([missing.statusCode, missing.json().message], [400, "body: missing property 'url'"])
  const source = await app.inject({ url: `${API}/profiles?q=j&source=xx`, headers: user.auth })
  t.same([source.statusCode, source.json().message], [400, 'querystring source: must be one of ig, fb, tt, tw, li'])
  const range = await app.inject({ url: `${API}/report?limit=0`, headers: user.auth })
  t.same([range.statusCode, range.json().message], [400, 'querystring limit: must be >= 1'])
})

t.test('every list pages with offset and limit: profiles, interests, webhooks', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  await seedReportData(app.db)
  const user = await signedInUser(app)

  const all = (await app.inject({ url: `${API}/profiles?q=e&limit=50`, headers: user.auth })).json()
  t.ok(all.items.length >= 3, `${all.items.length} profiles match`)
  t.equal(all.hasMore, false)
  const first = (await app.inject({ url: `${API}/profiles?q=e&limit=2`, headers: user.auth })).json()
  t.same([first.items, first.hasMore], [all.items.slice(0, 2), true], 'a first page of 2, more to come')
  const second = (await app.inject({ url: `${API}/profiles?q=e&offset=2&limit=2`, headers: user.auth })).json()
  t.same(second.items, all.items.slice(2, 4), 'offset goes on from there')

  const id = await readyReport(app, user.auth)
  const tree = (await app.inject({ url: `${API}/report/${id}/interests`, headers: user.auth })).json()
  t.ok(tree.items.length >= 1, 'the whole tree without paging parameters')
  t.same([tree.total, tree.hasMore], [tree.items.length, false])
  const page = (await app.inject({ url: `${API}/report/${id}/interests?limit=1`, headers: user.auth })).json()
  t.same(page, { source: tree.source, items: tree.items.slice(0, 1), total: tree.total, hasMore: tree.total > 1 }, 'limit pages the categories')
  const past = (await app.inject({ url: `${API}/report/${id}/interests?offset=${tree.total}&limit=5`, headers: user.auth })).json()
  t.same([past.items, past.total, past.hasMore], [[], tree.total, false], 'offset past the last category: an empty page')

  const receiver = await startReceiver(t)
  for (const n of [1, 2, 3]) {
    const made = await app.inject({ method: 'POST', url: `${API}/webhooks`, headers: user.auth, payload: { url: `${receiver.url}/h${n}`, events: ['report.ready'] } })
    t.equal(made.statusCode, 201)
  }
  const hooks = (await app.inject({ url: `${API}/webhooks?limit=2`, headers: user.auth })).json()
  t.same([hooks.items.length, hooks.total, hooks.hasMore], [2, 3, true], 'GET /webhooks honours limit')
  const rest = (await app.inject({ url: `${API}/webhooks?offset=2`, headers: user.auth })).json()
  t.same([rest.items.map((h: { url: string }) => h.url), rest.hasMore], [[`${receiver.url}/h3`], false])
})

t.test('a malformed id is 404 on every route, its message quoting no regular expression', async (t) => {
  const app = await build(t)
  const user = await signedInUser(app)
  for (const [method, url] of [['GET', '/report/nope'], ['POST', '/report/nope/watch'], ['DELETE', '/report/nope/watch'], ['GET', '/report/nope/interests'],
    ['POST', '/alerts/nope/read'], ['DELETE', '/webhooks/nope'], ['DELETE', '/auth/api-keys/nope'], ['DELETE', '/auth/sessions/nope'],
    ['DELETE', '/auth/passkeys/nope'], ['GET', '/webhooks/nope/deliveries'], ['GET', `/report/${'a'.repeat(80)}`]] as const) {
    const res = await app.inject({ method, url: `${API}${url}`, headers: user.auth })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.equal(res.json().reason, 'not_found')
    t.notMatch(res.json().message, /\^|\[0-9|\\d|pattern/, `${method} ${url}: ${res.json().message}`)
  }
})

t.test('a 401 names the Bearer scheme (RFC 6750), invalid_token when a token was refused; a 201 has Location', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  await seedReportData(app.db)
  const none = await app.inject({ url: `${API}/report` })
  t.equal(none.headers['www-authenticate'], 'Bearer', 'no credentials: the scheme')
  const refused = await app.inject({ url: `${API}/report`, headers: { authorization: 'Bearer not-a-token' } })
  t.equal(refused.headers['www-authenticate'], 'Bearer error="invalid_token"', 'a refused token')
  const key = await app.inject({ url: `${API}/report`, headers: { authorization: 'Bearer pir_nope_nope' } })
  t.equal(key.headers['www-authenticate'], 'Bearer error="invalid_token"', 'a refused API key')

  const user = await signedInUser(app)
  const created = await app.inject({ method: 'POST', url: `${API}/report`, headers: user.auth, payload: { profiles: [{ source: 'ig', username: 'jdoe' }] } })
  t.equal(created.statusCode, 201)
  t.equal(created.headers.location, `${API}/report/${created.json().id}`)
  t.equal((await app.inject({ url: String(created.headers.location), headers: user.auth })).statusCode, 200, 'Location names the report')
  const receiver = await startReceiver(t)
  const hook = await app.inject({ method: 'POST', url: `${API}/webhooks`, headers: user.auth, payload: { url: `${receiver.url}/h`, events: ['report.ready'] } })
  t.equal(hook.headers.location, `${API}/webhooks/${hook.json().id}`)
  const issued = await app.inject({ method: 'POST', url: `${API}/auth/api-keys`, headers: user.auth, payload: { name: 'p', scopes: ['reports:read'] } })
  t.equal(issued.headers.location, `${API}/auth/api-keys/${issued.json().id}`)
  const id = await readyReport(app, user.auth)
  const watch = await app.inject({ method: 'POST', url: `${API}/report/${id}/watch`, headers: user.auth })
  t.same([watch.statusCode, watch.headers.location], [201, `${API}/report/${id}/watch`])
})

t.test('the OpenAPI document describes every operation whatever the configuration, and the headers it sends', { skip: onPostgres && 'the document does not read the database' }, async (t) => {
  const app = await build(t, { INGEST_TOKEN: '' })
  const doc = (await app.inject({ url: `${API}/openapi.json` })).json()
  t.ok(doc.paths[`${API}/ingest`]?.post, 'POST /ingest without INGEST_TOKEN')
  t.match(doc.paths[`${API}/ingest`].post.description, /without INGEST_TOKEN answers every request 404/)
  const ingest = await app.inject({ method: 'POST', url: `${API}/ingest`, headers: { authorization: 'Bearer x', 'content-type': 'application/x-ndjson' }, payload: '' })
  t.same([ingest.statusCode, ingest.json()], [404, { code: 404, message: 'not found', reason: 'not_found' }], 'and the route answers 404')
  t.same(doc.servers.map((s: { url: string }) => s.url), [app.config.publicUrl], 'servers: PUBLIC_URL')

  const list = doc.paths[`${API}/report`].get.responses
  t.same(Object.keys(list[200].headers ?? {}).sort(), ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
  t.ok(list[429].headers['Retry-After'], '429: Retry-After')
  t.ok(list[401].headers['WWW-Authenticate'], '401: WWW-Authenticate')
  t.match(list[403].description, /`scope_missing`/, 'the reasons of a status are listed')
  t.ok(doc.paths[`${API}/report/{id}`].get.responses[200].headers.ETag, 'ETag where it is sent')
  t.ok(doc.paths[`${API}/report`].post.responses[201].headers.Location, 'Location on a 201')
  t.ok(doc.components.schemas.GeneralError.properties.reason, 'GeneralError has reason')
  t.notOk(doc.paths[`${API}/health/live`].get.responses[200].headers?.['RateLimit-Limit'], 'no RateLimit-* where no limit counts')
  const names = JSON.stringify(doc.paths)
  t.notMatch(names, /X-RateLimit/i, 'no X-RateLimit-* anywhere')
})
