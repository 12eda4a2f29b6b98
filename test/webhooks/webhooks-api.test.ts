// /webhooks through the API: create (the secret once), list (never the secret), delete, rotate, the
// per-account cap, what a request body may be, another account's endpoint as 404, and which URLs
// production takes (https, no loopback, private or link-local literal address).
import t from '../tap.ts'
import { build, freshDatabase, logCapture, signedInUser, testConfig, type Tap } from '../helper.ts'
import { buildApp } from '../../src/app.ts'
import { MAX_ENDPOINTS } from '../../src/services/webhooks/index.ts'
import type { FastifyInstance } from 'fastify'

const create = (app: FastifyInstance, auth: Record<string, string>, payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth, payload: payload as object })

t.test('create, list, rotate, delete; the secret is shown once', async (t) => {
  const app = await build(t)
  const u = await signedInUser(app)
  const res = await create(app, u.auth, { url: 'http://127.0.0.1:9/hook', events: ['report.ready', 'report.failed'] })
  t.equal(res.statusCode, 201)
  const made = res.json()
  // no log line may carry a secret (checked at the end of the test)
  logCapture(app)?.secret(made.secret)
  t.match(made, { url: 'http://127.0.0.1:9/hook', events: ['report.ready', 'report.failed'] })
  t.match(made.secret, /^whsec_[A-Za-z0-9+/]+=*$/)
  t.equal(Buffer.from(made.secret.slice(6), 'base64').length, 32, '32 random bytes')

  const list = await app.inject({ url: '/api/v1/webhooks', headers: u.auth })
  t.equal(list.statusCode, 200)
  t.same(list.json(), { items: [{ id: made.id, url: made.url, events: made.events, createdAt: made.createdAt, disabledAt: null }] })
  t.notOk(list.body.includes(made.secret.slice(6)), 'the list never carries the secret')

  const rotated = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${made.id}/rotate`, headers: u.auth })
  t.equal(rotated.statusCode, 200)
  logCapture(app)?.secret(rotated.json().secret)
  t.equal(rotated.json().id, made.id)
  t.match(rotated.json().secret, /^whsec_/)
  t.not(rotated.json().secret, made.secret, 'a new secret')
  const [row] = await app.database.query<{ secret: string, previous_secret: string, previous_until: Date }>(
    'select secret, previous_secret, previous_until from webhook_endpoints where id = $1', [made.id])
  t.equal(row.secret, rotated.json().secret)
  t.equal(row.previous_secret, made.secret, 'the previous secret is kept')
  const left = new Date(row.previous_until).getTime() - Date.now()
  t.ok(left > 23 * 3600_000 && left <= 24 * 3600_000, 'for 24 h')

  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${made.id}`, headers: u.auth })).statusCode, 204)
  t.same((await app.inject({ url: '/api/v1/webhooks', headers: u.auth })).json(), { items: [] })
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${made.id}`, headers: u.auth })).statusCode, 404, 'gone')
})

t.test('an idempotent POST /webhooks replays its secret while the endpoint lives, not after it is deleted', async (t) => {
  const app = await build(t)
  const u = await signedInUser(app)
  const body = { url: 'http://127.0.0.1:9/hook', events: ['report.ready'] }
  const post = (key: string) => app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { ...u.auth, 'idempotency-key': key }, payload: body })
  const first = await post('hook-1')
  t.equal(first.statusCode, 201)
  const made = first.json()
  logCapture(app)?.secret(made.secret)
  // another endpoint's stored answer stays: only the deleted endpoint's answer goes
  const other = await post('hook-2')
  logCapture(app)?.secret(other.json().secret)
  const replay = await post('hook-1')
  t.equal(replay.headers['idempotent-replayed'], 'true', 'a retry while the endpoint lives is the first answer')
  t.equal(replay.json().secret, made.secret)

  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${made.id}`, headers: u.auth })).statusCode, 204)
  const stored = await app.database.query<{ key: string }>('select key from idempotency_keys order by key')
  t.same(stored.map((r) => r.key), ['hook-2'], 'the deleted endpoint\'s stored answer is gone with it')
  const after = await post('hook-1')
  logCapture(app)?.secret(after.json().secret)
  t.equal(after.statusCode, 201)
  t.notOk(after.headers['idempotent-replayed'], 'no replay')
  t.notOk(after.body.includes(made.secret.slice('whsec_'.length)), 'the deleted endpoint\'s secret is not answered again')
  t.not(after.json().id, made.id, 'the retry is a request of its own')
  t.equal((await post('hook-2')).json().secret, other.json().secret, 'the other endpoint\'s answer still replays')
})

t.test('another account\'s endpoint, an unknown one and a malformed id are 404; no token is 401', async (t) => {
  const app = await build(t)
  const owner = await signedInUser(app)
  const other = await signedInUser(app)
  const made = (await create(app, owner.auth, { url: 'http://127.0.0.1:9/hook', events: ['webhook.test'] })).json()
  const delivery = (await app.inject({ method: 'POST', url: `/api/v1/webhooks/${made.id}/test`, headers: owner.auth })).json().deliveryId as string
  for (const id of [made.id, '7d1f3a64-5b0e-4c3a-9f0e-2a1b3c4d5e6f', 'not-a-uuid']) {
    for (const [method, url] of [
      ['DELETE', `/api/v1/webhooks/${id}`], ['POST', `/api/v1/webhooks/${id}/rotate`], ['POST', `/api/v1/webhooks/${id}/test`],
      ['GET', `/api/v1/webhooks/${id}/deliveries`], ['POST', `/api/v1/webhooks/${id}/deliveries/${delivery}/retry`]
    ] as const) {
      const res = await app.inject({ method, url, headers: other.auth })
      t.equal(res.statusCode, 404, `${method} ${url.replace(id, id === made.id ? '<another\'s>' : id)}`)
      t.same(res.json(), { code: 404, message: 'webhook not found' })
    }
  }
  t.same((await app.inject({ url: '/api/v1/webhooks', headers: other.auth })).json(), { items: [] }, 'the other account lists none')
  const unknownDelivery = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${made.id}/deliveries/7d1f3a64-5b0e-4c3a-9f0e-2a1b3c4d5e6f/retry`, headers: owner.auth })
  t.same(unknownDelivery.json(), { code: 404, message: 'delivery not found' })
  t.equal((await app.inject({ url: '/api/v1/webhooks' })).statusCode, 401)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${made.id}` })).statusCode, 401)
  t.equal((await app.inject({ url: '/api/v1/webhooks', headers: owner.auth })).json().items.length, 1, 'the owner\'s endpoint is untouched')
})

t.test('what a body may be: events a non-empty set of known events, url an http(s) URL', async (t) => {
  const app = await build(t)
  const u = await signedInUser(app)
  const bad: Array<[unknown, string]> = [
    [{ url: 'http://127.0.0.1:9/', events: [] }, 'no events'],
    [{ url: 'http://127.0.0.1:9/', events: ['report.ready', 'report.ready'] }, 'an event twice'],
    [{ url: 'http://127.0.0.1:9/', events: ['report.deleted'] }, 'an unknown event'],
    [{ url: 'http://127.0.0.1:9/' }, 'no events at all'],
    [{ events: ['report.ready'] }, 'no url'],
    [{ url: 'http://127.0.0.1:9/', events: ['report.ready'], secret: 'mine' }, 'a field of its own'],
    [{ url: 'ftp://example.com/', events: ['report.ready'] }, 'another scheme'],
    [{ url: 'example.com/hook', events: ['report.ready'] }, 'not absolute'],
    [{ url: 'https://user:pw@example.com/hook', events: ['report.ready'] }, 'credentials'],
    [{ url: `https://example.com/${'a'.repeat(2100)}`, events: ['report.ready'] }, 'too long']
  ]
  for (const [payload, what] of bad) {
    const res = await create(app, u.auth, payload)
    t.equal(res.statusCode, 400, what)
    t.equal(res.json().code, 400)
    t.type(res.json().message, 'string')
  }
  t.same((await app.inject({ url: '/api/v1/webhooks', headers: u.auth })).json(), { items: [] }, 'nothing was created')
})

t.test(`at most ${MAX_ENDPOINTS} endpoints per account: 409 past that`, async (t) => {
  const app = await build(t)
  const u = await signedInUser(app)
  const answers = await Promise.all(Array.from({ length: MAX_ENDPOINTS + 2 }, (_, i) =>
    create(app, u.auth, { url: `https://hooks.example.com/${i}`, events: ['report.ready'] })))
  t.equal(answers.filter((r) => r.statusCode === 201).length, MAX_ENDPOINTS, 'created, even all at once')
  const refused = answers.filter((r) => r.statusCode !== 201)
  t.same(refused.map((r) => r.json()), [1, 2].map(() => ({ code: 409, message: `at most ${MAX_ENDPOINTS} webhooks per account` })))
  const other = await signedInUser(app)
  t.equal((await create(app, other.auth, { url: 'https://hooks.example.com/', events: ['report.ready'] })).statusCode, 201, 'the cap is per account')
  const first = (await app.inject({ url: '/api/v1/webhooks', headers: u.auth })).json().items[0].id
  await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${first}`, headers: u.auth })
  t.equal((await create(app, u.auth, { url: 'https://hooks.example.com/again', events: ['report.ready'] })).statusCode, 201, 'a deleted one makes room')
})

/** the app with production's webhook rules (WEBHOOK_ALLOW_PRIVATE off in production) */
async function productionRules (t: Tap) {
  const config = testConfig(t)
  config.webhooks = { ...config.webhooks, allowPrivate: false }
  const app = await buildApp(config, { database: await freshDatabase(t) })
  t.teardown(() => app.close())
  await app.ready()
  return app
}

t.test('production: https only, and no loopback, private or link-local address in the URL', async (t) => {
  const app = await productionRules(t)
  const u = await signedInUser(app)
  const refusals: Array<[string, string]> = [
    ['http://127.0.0.1/hook', 'url must be https'],
    ['http://[::1]/hook', 'url must be https'],
    ['http://169.254.169.254/latest/meta-data/', 'url must be https'],
    ['http://hooks.example.com/', 'url must be https']
  ]
  for (const url of ['https://127.0.0.1/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest/meta-data/', 'https://10.0.0.1/',
    'https://192.168.1.10:8443/', 'https://[fe80::1]/', 'https://[::ffff:127.0.0.1]/', 'https://2130706433/', 'https://0.0.0.0/',
    'https://localhost/', 'https://api.localhost/']) {
    refusals.push([url, 'url must not point to a loopback, private or link-local address'])
  }
  for (const [url, message] of refusals) {
    const res = await create(app, u.auth, { url, events: ['report.ready'] })
    t.same({ status: res.statusCode, body: res.json() }, { status: 400, body: { code: 400, message } }, url)
  }
  // a name is checked when a delivery connects (test/webhooks/outbound-rules.test.ts)
  const named = await create(app, u.auth, { url: 'https://hooks.example.com/in', events: ['report.ready'] })
  t.equal(named.statusCode, 201, 'an https URL with a name is taken')
  t.equal((await create(app, u.auth, { url: 'https://93.184.215.14/in', events: ['report.ready'] })).statusCode, 201, 'and a public address')
})
