// Deliveries end to end: the app's own delivery workers (WORKERS=1) send to a real HTTP receiver on
// loopback, whose requests are checked with the typed client's verifyWebhook. report.ready after a
// real generation, report.failed after a real failure, webhook.test; a 500 retried with the same
// webhook-id; a spent schedule failed; a refused connection and a redirect retried; 410 disabling the
// endpoint; both signatures during a rotation; the delivery log's pages; a manual retry.
import t from '../tap.ts'
import { build, signedInUser } from '../helper.ts'
import type { Test } from '../tap.ts'
import { verifyWebhook } from '../../client/src/index.ts'
import { createReport, waitForStatus } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { startReceiver, type Answer, type Received } from './receiver.ts'
import type { FastifyInstance } from 'fastify'

// attempts 0, 1 and 2 s after a delivery's creation
const ENV = { WORKERS: '1', SIGNUP_FREE_REPORTS: '2', WEBHOOK_RETRY_SCHEDULE: '0,1,2', REPORT_JOB_EXPIRE_S: '1', QUEUE_MAINTENANCE_S: '1' }

async function setUp (t: Test, answer?: Answer, events = ['report.ready', 'report.failed', 'webhook.test']) {
  const app = await build(t, ENV)
  const u = await signedInUser(app)
  const receiver = await startReceiver(t, answer)
  const res = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: u.auth, payload: { url: `${receiver.url}/hook`, events } })
  t.equal(res.statusCode, 201)
  const hook = res.json() as { id: string, secret: string }
  return { app, u, receiver, hook }
}

async function deliveries (app: FastifyInstance, auth: Record<string, string>, hookId: string, query = '') {
  const res = await app.inject({ url: `/api/v1/webhooks/${hookId}/deliveries${query}`, headers: auth })
  if (res.statusCode !== 200) throw new Error(res.body)
  return res.json()
}

/** the delivery's state, once it is no longer pending (bounded) */
async function settled (app: FastifyInstance, auth: Record<string, string>, hookId: string, deliveryId: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const found = (await deliveries(app, auth, hookId, '?limit=100')).items.find((d: { id: string }) => d.id === deliveryId)
    if (found && found.status !== 'pending') return found
    if (Date.now() > until) throw new Error(`delivery ${deliveryId} still pending: ${JSON.stringify(found)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const test = async (app: FastifyInstance, auth: Record<string, string>, hookId: string) => {
  const res = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${hookId}/test`, headers: auth })
  if (res.statusCode !== 202) throw new Error(res.body)
  return res.json().deliveryId as string
}

function verified (t: Test, secret: string, r: Received) {
  t.equal(r.headers['content-type'], 'application/json')
  return verifyWebhook(secret, r.headers, r.body)
}

t.test('webhook.test: signed, the Standard Webhooks headers, the body {type, timestamp, data}', async (t) => {
  const { app, u, receiver, hook } = await setUp(t)
  const id = await test(app, u.auth, hook.id)
  const [r] = await receiver.waitFor(1)
  t.equal(r.path, '/hook')
  t.equal(r.headers['webhook-id'], id, 'webhook-id is the delivery id')
  t.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 60, 'webhook-timestamp: Unix seconds of the attempt')
  t.match(r.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/, 'one signature')
  const payload = verified(t, hook.secret, r)
  t.same(Object.keys(payload), ['type', 'timestamp', 'data'])
  t.same({ type: payload.type, data: payload.data }, { type: 'webhook.test', data: { webhookId: hook.id } })
  t.ok(!Number.isNaN(Date.parse(payload.timestamp)))
  const d = await settled(app, u.auth, hook.id, id)
  t.match(d, { id, type: 'webhook.test', status: 'delivered', attempts: 1, lastStatusCode: 200, lastError: null })
  t.type(d.deliveredAt, 'string')
})

t.test('report.ready after a real generation, to subscribed endpoints only; report.failed after a real failure', async (t) => {
  const { app, u, receiver, hook } = await setUp(t)
  // another endpoint of the same account, subscribed to report.failed alone
  const failedOnly = await startReceiver(t)
  const other = (await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: u.auth, payload: { url: failedOnly.url, events: ['report.failed'] } })).json()
  await seedReportData(app.db)
  const reportId = await createReport(app, u.auth)
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${reportId}/generate`, headers: u.auth })).statusCode, 202)
  const ready = (await waitForStatus(app, u.auth, reportId, ['ready'], 60_000)).json()
  const [r] = await receiver.waitFor(1)
  const payload = verified(t, hook.secret, r)
  t.same({ type: payload.type, data: payload.data }, { type: 'report.ready', data: { reportId, generatedAt: ready.generatedAt } })
  t.equal(payload.timestamp, ready.generatedAt, 'the event happened when the report was generated')
  const [row] = await app.database.query<{ n: number }>('select count(*)::int as n from webhook_deliveries where endpoint_id = $1', [other.id])
  t.equal(row.n, 0, 'nothing for the endpoint not subscribed to report.ready')

  // a real fault: a table the loader reads is gone, every attempt fails
  const failing = await createReport(app, u.auth)
  await app.database.exec('alter table red_flags rename to red_flags_away')
  t.teardown(() => app.database.exec('alter table if exists red_flags_away rename to red_flags'))
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${failing}/generate`, headers: u.auth })).statusCode, 202)
  await waitForStatus(app, u.auth, failing, ['failed'], 60_000)
  const [, f] = await receiver.waitFor(2)
  t.same(verified(t, hook.secret, f).data, { reportId: failing })
  t.equal(verified(t, hook.secret, f).type, 'report.failed')
  const [g] = await failedOnly.waitFor(1)
  t.same(verified(t, other.secret, g).data, { reportId: failing }, 'and to the endpoint subscribed to it alone')
})

t.test('a 500 is retried with the same webhook-id; a spent schedule is failed; a manual retry sends it again', async (t) => {
  let mode: 'fail-once' | 'fail' | 'ok' = 'fail-once'
  const { app, u, receiver, hook } = await setUp(t, (n) => mode === 'fail' || (mode === 'fail-once' && n === 0) ? 500 : 200)
  const once = await test(app, u.auth, hook.id)
  const [a, b] = await receiver.waitFor(2)
  t.equal(a.headers['webhook-id'], once)
  t.equal(b.headers['webhook-id'], once, 'the same webhook-id on the retry')
  t.equal(a.body, b.body, 'the same body, byte for byte')
  verified(t, hook.secret, b)
  t.match(await settled(app, u.auth, hook.id, once), { status: 'delivered', attempts: 2, lastStatusCode: 200 })

  mode = 'fail'
  const never = await test(app, u.auth, hook.id)
  await receiver.waitFor(5)
  const failed = await settled(app, u.auth, hook.id, never)
  t.match(failed, { status: 'failed', attempts: 3, lastStatusCode: 500, lastError: 'status 500', deliveredAt: null }, 'failed after the schedule\'s 3 attempts')
  const [times] = await app.database.query<{ created: Date }>('select created_at as created from webhook_deliveries where id = $1', [never])
  const sent = receiver.received.slice(2).map((r) => r.at - new Date(times.created).getTime())
  t.ok(sent[1] >= 900 && sent[2] >= 1900, `attempts no earlier than the schedule says (${sent.join(', ')} ms after creation)`)

  mode = 'ok'
  const retried = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/deliveries/${never}/retry`, headers: u.auth })
  t.equal(retried.statusCode, 202)
  t.same(retried.json(), { deliveryId: never })
  const [,,,,, again] = await receiver.waitFor(6)
  t.equal(again.headers['webhook-id'], never, 'the manual retry keeps the webhook-id')
  t.match(await settled(app, u.auth, hook.id, never), { status: 'delivered', attempts: 4, lastStatusCode: 200, lastError: null })
  const twice = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/deliveries/${never}/retry`, headers: u.auth })
  t.has(twice.json(), { code: 409, message: 'the delivery was already delivered' })
})

t.test('a refused connection and a redirect are not deliveries: retried, then failed', async (t) => {
  const { app, u, receiver, hook } = await setUp(t, () => 301)
  const redirected = await test(app, u.auth, hook.id)
  t.match(await settled(app, u.auth, hook.id, redirected), { status: 'failed', attempts: 3, lastStatusCode: 301, lastError: 'redirect not followed' })
  t.equal(receiver.received.length, 3, 'the redirect was not followed')

  // a port nothing listens on (discard)
  const res = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: u.auth, payload: { url: 'http://127.0.0.1:9/', events: ['webhook.test'] } })
  const refusedHook = res.json().id as string
  const refused = await test(app, u.auth, refusedHook)
  t.match(await settled(app, u.auth, refusedHook, refused), { status: 'failed', attempts: 3, lastStatusCode: null, lastError: /^request failed: ECONNREFUSED/ })
})

t.test('410 Gone disables the endpoint and fails its pending deliveries', async (t) => {
  const { app, u, receiver, hook } = await setUp(t, () => 410)
  // a delivery waiting for a later attempt
  const [waiting] = await app.database.query<{ id: string }>(
    'insert into webhook_deliveries (endpoint_id, type, body, attempts, next_attempt_at) values ($1, \'webhook.test\', \'{}\', 1, now() + interval \'1 hour\') returning id', [hook.id])
  const id = await test(app, u.auth, hook.id)
  t.match(await settled(app, u.auth, hook.id, id), { status: 'failed', attempts: 1, lastStatusCode: 410 })
  t.match(await settled(app, u.auth, hook.id, waiting.id), { status: 'failed', attempts: 1 }, 'the waiting delivery is failed too')
  const [listed] = (await app.inject({ url: '/api/v1/webhooks', headers: u.auth })).json().items
  t.type(listed.disabledAt, 'string', 'the endpoint is disabled')
  const again = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/test`, headers: u.auth })
  t.equal(again.statusCode, 409, 'a disabled endpoint takes no test')
  const retry = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/deliveries/${id}/retry`, headers: u.auth })
  t.equal(retry.statusCode, 409, 'nor a retry')
  t.equal(receiver.received.length, 1, 'one request in all')
})

t.test('after a rotation every delivery carries two signatures, each verifying with its secret', async (t) => {
  const { app, u, receiver, hook } = await setUp(t)
  const rotated = (await app.inject({ method: 'POST', url: `/api/v1/webhooks/${hook.id}/rotate`, headers: u.auth })).json()
  await test(app, u.auth, hook.id)
  const [r] = await receiver.waitFor(1)
  const signatures = String(r.headers['webhook-signature']).split(' ')
  t.equal(signatures.length, 2, 'two signatures, space-separated')
  t.equal(verifyWebhook(rotated.secret, r.headers, r.body).type, 'webhook.test', 'the new secret verifies')
  t.equal(verifyWebhook(hook.secret, r.headers, r.body).type, 'webhook.test', 'the previous secret verifies')
  for (const [i, secret] of [rotated.secret, hook.secret].entries()) {
    t.doesNotThrow(() => verifyWebhook(secret, { ...r.headers, 'webhook-signature': signatures[i] }, r.body), `signature ${i + 1} alone`)
  }
  // once the previous secret's 24 h are over, only the new one signs
  await app.database.query('update webhook_endpoints set previous_until = now() - interval \'1 second\' where id = $1', [hook.id])
  await test(app, u.auth, hook.id)
  const [, later] = await receiver.waitFor(2)
  t.equal(String(later.headers['webhook-signature']).split(' ').length, 1)
  t.throws(() => verifyWebhook(hook.secret, later.headers, later.body), 'the previous secret no longer verifies')
  verifyWebhook(rotated.secret, later.headers, later.body)
})

t.test('the delivery log: newest first, paged with offset and limit', async (t) => {
  const { app, u, receiver, hook } = await setUp(t)
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push(await test(app, u.auth, hook.id))
  await receiver.waitFor(5)
  const newestFirst = [...ids].reverse()
  const first = await deliveries(app, u.auth, hook.id, '?limit=2')
  t.same(first.items.map((d: { id: string }) => d.id), newestFirst.slice(0, 2))
  t.match(first, { total: 5, hasMore: true })
  const last = await deliveries(app, u.auth, hook.id, '?offset=4&limit=2')
  t.same(last.items.map((d: { id: string }) => d.id), newestFirst.slice(4))
  t.match(last, { total: 5, hasMore: false })
  t.same((await deliveries(app, u.auth, hook.id, '?offset=10')).items, [])
  const bad = await app.inject({ url: `/api/v1/webhooks/${hook.id}/deliveries?limit=1000`, headers: u.auth })
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().code, 400)
})
