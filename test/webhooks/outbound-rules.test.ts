// Where a delivery may connect, with production's rules (allowPrivate off, https only): loopback,
// link-local and private literal addresses, and a name that resolves to a private address (a resolver
// the test passes in), are refused before any connection, and the reason is the delivery's
// last_error. A claim is a lease; an answer's status is read with a capped start of its body; a
// silent endpoint times out. And events are written in the transaction of their cause: a
// rolled-back one leaves no delivery.
import t from '../tap.ts'
import type { LookupAddress } from 'node:dns'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { build, signedInUser, type Tap } from '../helper.ts'
import { OutboundRefused } from '../../src/errors.ts'
import { createOutboundPost } from '../../src/services/outbound/post.ts'
import { createDeliverer } from '../../src/services/webhooks/delivery.ts'
import { recordEvent } from '../../src/services/webhooks/events.ts'
import { startReceiver } from './receiver.ts'
import type { FastifyInstance } from 'fastify'

/** the app without delivery workers (WORKERS=0): the test drives the deliverer itself; endpoints outside production rules are made through the API */
async function setUp (t: Tap) {
  const app = await build(t, { WORKERS: '0' })
  const u = await signedInUser(app)
  const hook = async (url: string, events = ['webhook.test', 'report.ready']) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: u.auth, payload: { url, events } })
    if (res.statusCode !== 201) throw new Error(res.body)
    return res.json().id as string
  }
  return { app, u, hook }
}

const row = async (app: FastifyInstance, id: string) => (await app.database.query<{ status: string, attempts: number, last_error: string | null, last_status_code: number | null }>(
  'select status, attempts, last_error, last_status_code from webhook_deliveries where id = $1', [id]))[0]

t.test('production rules at send time: no connection to a loopback, private or link-local address, by literal or by name', async (t) => {
  const { app, u, hook } = await setUp(t)
  const receiver = await startReceiver(t)
  const port = new URL(receiver.url).port
  const resolved: string[] = []
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    resolved.push(hostname)
    const table: Record<string, string> = { 'internal.example': '10.0.0.1', 'loopback.example': '127.0.0.1' }
    if (!table[hostname]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
    return [{ address: table[hostname], family: 4 }]
  }
  const cases: Array<[string, string, string]> = [
    // production: https only
    ['http://127.0.0.1', `http://127.0.0.1:${port}/hook`, 'scheme http: not allowed'],
    ['http://[::1]', `http://[::1]:${port}/hook`, 'scheme http: not allowed'],
    ['http://169.254.169.254', 'http://169.254.169.254/latest/meta-data/', 'scheme http: not allowed'],
    // and over https, the address
    ['https://127.0.0.1', `https://127.0.0.1:${port}/hook`, 'address not allowed'],
    ['https://[::1]', `https://[::1]:${port}/hook`, 'address not allowed'],
    ['https://169.254.169.254', 'https://169.254.169.254/latest/meta-data/', 'address not allowed'],
    ['a name resolving to 10.0.0.1', `https://internal.example:${port}/hook`, 'address not allowed'],
    ['a name resolving to 127.0.0.1', `https://loopback.example:${port}/hook`, 'address not allowed']
  ]
  const ids = new Map<string, string>()
  for (const [what, url] of cases) {
    const id = await hook(url)
    const test = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: u.auth })
    ids.set(what, test.json().deliveryId)
  }
  const post = createOutboundPost({ allowPrivate: false, httpsOnly: true, timeoutMs: 5000, resolve })
  const deliverer = createDeliverer({ database: app.database, post, retryScheduleS: [0, 3600], leaseMs: 20_000 })
  const outcomes = await deliverer.runDue(100)
  t.same(outcomes, cases.map(() => 'retry'), 'every attempt ended, none delivered')
  for (const [what, , reason] of cases) {
    t.match(await row(app, ids.get(what)!), { status: 'pending', attempts: 1, last_error: reason, last_status_code: null }, `${what}: ${reason}`)
  }
  t.same(resolved.sort(), ['internal.example', 'loopback.example'], 'names are resolved at connect time, by the guarded lookup')
  t.equal(receiver.received.length, 0, 'no request reached the receiver')

  // the same endpoints outside production (allowPrivate): the loopback one is reached
  const open = createDeliverer({ database: app.database, post: createOutboundPost({ allowPrivate: true, httpsOnly: false }), retryScheduleS: [0], leaseMs: 20_000 })
  await app.database.query('update webhook_deliveries set next_attempt_at = now() where id = $1', [ids.get('http://127.0.0.1')])
  t.same(await open.runDue(100), ['delivered'])
  t.equal(receiver.received.length, 1)
})

t.test('production rules at send time: an IPv6 address that carries a loopback IPv4 address is refused, by literal or by name', async (t) => {
  const { app, u, hook } = await setUp(t)
  const receiver = await startReceiver(t)
  const port = new URL(receiver.url).port
  const table: Record<string, string> = { 'compat.example': '::7f00:1', 'mapped.example': '::ffff:7f00:1', 'nat64.example': '64:ff9b::7f00:1' }
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    if (!table[hostname]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
    return [{ address: table[hostname], family: 6 }]
  }
  const urls = [`https://[::7f00:1]:${port}/hook`, `https://[::127.0.0.1]:${port}/hook`, `https://[::ffff:7f00:1]:${port}/hook`,
    `https://[64:ff9b::7f00:1]:${port}/hook`, `https://[::ffff:0:7f00:1]:${port}/hook`,
    `https://compat.example:${port}/hook`, `https://mapped.example:${port}/hook`, `https://nat64.example:${port}/hook`]
  const ids: string[] = []
  for (const url of urls) {
    const test = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${await hook(url)}/test`, headers: u.auth })
    ids.push(test.json().deliveryId)
  }
  const post = createOutboundPost({ allowPrivate: false, httpsOnly: true, timeoutMs: 5000, resolve })
  const deliverer = createDeliverer({ database: app.database, post, retryScheduleS: [0, 3600], leaseMs: 20_000 })
  t.same(await deliverer.runDue(100), urls.map(() => 'retry'), 'every attempt ended, none delivered')
  for (const [k, url] of urls.entries()) {
    t.match(await row(app, ids[k]), { status: 'pending', attempts: 1, last_error: 'address not allowed', last_status_code: null }, url)
  }
  t.equal(receiver.received.length, 0, 'no request reached the receiver')
})

t.test('a claim is a lease: a claimed delivery is not claimed again until the lease is over', async (t) => {
  const { app, u, hook } = await setUp(t)
  const id = await hook('http://127.0.0.1:9/')
  const deliveryId = (await app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: u.auth })).json().deliveryId
  const post = createOutboundPost({ allowPrivate: true, httpsOnly: false })
  const a = createDeliverer({ database: app.database, post, retryScheduleS: [0, 60], leaseMs: 60_000 })
  t.same((await a.claim(10)).map((d) => d.id), [deliveryId], 'the first worker claims it')
  t.same(await a.claim(10), [], 'a second claim finds nothing while the lease runs')
  // the first worker died: its lease runs out
  await app.database.query('update webhook_deliveries set next_attempt_at = now() - interval \'1 second\' where id = $1', [deliveryId])
  const [taken] = await a.claim(10)
  t.equal(taken.id, deliveryId, 'another worker takes it over')
  t.equal(taken.attempts, 0, 'as the same attempt')
})

t.test('events are written in the transaction of their cause: one per enabled endpoint subscribed; none when it rolls back', async (t) => {
  const { app, u, hook } = await setUp(t)
  const ready = await hook('http://127.0.0.1:9/a', ['report.ready'])
  await hook('http://127.0.0.1:9/b', ['report.failed'])
  const disabled = await hook('http://127.0.0.1:9/c', ['report.ready'])
  await app.database.query('update webhook_endpoints set disabled_at = now() where id = $1', [disabled])
  const [{ id: userId }] = await app.database.query<{ id: string }>('select id from users where email = $1', [u.email])
  const data = { reportId: '0b7e6c1a-3d2f-4e5a-8b9c-1d2e3f4a5b6c', generatedAt: new Date().toISOString() }
  const count = async () => (await app.database.query<{ n: number }>('select count(*)::int as n from webhook_deliveries'))[0].n

  await t.rejects(app.db.transaction(async (tx) => {
    await recordEvent(tx, userId, 'report.ready', data, new Date(), [0])
    throw new Error('the change failed')
  }))
  t.equal(await count(), 0, 'rolled back: no delivery')

  const ids = await app.db.transaction(async (tx) => await recordEvent(tx, userId, 'report.ready', data, new Date(), [0]))
  t.equal(ids.length, 1, 'one delivery')
  const [d] = await app.database.query<{ endpoint_id: string, type: string, status: string, body: string }>('select endpoint_id, type, status, body from webhook_deliveries')
  t.match(d, { endpoint_id: ready, type: 'report.ready', status: 'pending' }, 'for the enabled endpoint subscribed to it')
  t.same(JSON.parse(d.body).data, data)
})

t.test('an endpoint\'s answer: the status counts, a capped start of the body is read, a silent one times out', async (t) => {
  let requests = 0
  const server = createServer((req, res) => {
    requests++
    req.resume()
    if (req.url === '/endless') {
      // a 200 whose body never ends
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write(Buffer.alloc(64 * 1024, 'x'))
      return
    }
    // /silent: no answer at all
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const post = createOutboundPost({ allowPrivate: true, httpsOnly: false, timeoutMs: 1000 })
  const answer = await post(`${base}/endless`, { headers: { 'content-type': 'application/json' }, body: '{}', maxAnswerBytes: 1024 })
  t.equal(answer.status, 200, 'the status, without waiting for the body\'s end')
  t.ok(answer.body.length <= 1024, `at most the cap read (${answer.body.length} bytes)`)
  await t.rejects(post(`${base}/silent`, { headers: {}, body: '{}', maxAnswerBytes: 1024 }), new OutboundRefused('timed out'))
  t.equal(requests, 2)
})
