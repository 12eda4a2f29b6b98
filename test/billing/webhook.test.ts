// POST /billing/webhook: events signed with the official client's
// generateTestHeaderString; signature checks, idempotency by event id, ordering, subscription rows,
// and the acquisition code put back on a subscription that lacks it.
import t from '../tap.ts'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { stripeEvents, subscriptions } from '../../src/db/schema/index.ts'
import { build, signedInUser } from '../helper.ts'
import { startStripe, subscriptionObject } from '../peers/stripe.ts'
import { deliver, nowS, PRICE_ID, stripeEnv, stripeEvent, userInfo } from './support.ts'

const peer = await startStripe(t)
const app: FastifyInstance = await build(t, stripeEnv(peer))
const db = app.database.db

const URLS = { successUrl: 'https://localhost:8443/done', cancelUrl: 'https://localhost:8443/' }

/** a signed-in user who went through checkout once, so Stripe knows them as a customer */
async function customer (acquisitionCode?: string) {
  const user = await signedInUser(app, acquisitionCode ? { signUpBody: { acquisition_code: acquisitionCode } } : {})
  const { id } = await userInfo(app, user.auth)
  const res = await app.inject({ method: 'POST', url: '/api/v1/billing/checkout', headers: user.auth, payload: URLS })
  if (res.statusCode !== 200) throw new Error(res.body)
  const customerId = peer.calls('POST', '/v1/checkout/sessions').at(-1)!.form.customer
  return { ...user, id, customerId }
}

const row = async (subscriptionId: string) =>
  (await db.select().from(subscriptions).where(eq(subscriptions.stripeSubscriptionId, subscriptionId)))[0]
const eventCount = async () => (await db.select().from(stripeEvents)).length
const subscriptionOf = async (auth: Record<string, string>) => (await userInfo(app, auth)).subscription

t.test('the signature is checked on the raw body: 400 and nothing stored when it fails', async (t) => {
  const before = await eventCount()
  const event = stripeEvent('customer.subscription.created', subscriptionObject({ id: 'sub_never', customer: 'cus_none' }))
  const bad = async (name: string, res: Awaited<ReturnType<typeof deliver>>, message = 'invalid stripe-signature') => {
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.has(res.json(), { code: 400, message }, name)
  }
  await bad('a wrong secret', await deliver(app, event, { secret: 'whsec_someone_else' }))
  await bad('a stale timestamp', await deliver(app, event, { timestamp: nowS() - 600 }))
  await bad('a tampered body', await deliver(app, event, { tamper: (b) => b.replace('sub_never', 'sub_nevex') }))
  await bad('a re-serialised body', await deliver(app, event, { tamper: (b) => JSON.stringify(JSON.parse(b), null, 2) }))

  let res = await app.inject({ method: 'POST', url: '/api/v1/billing/webhook', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(event) })
  t.equal(res.statusCode, 400, 'no stripe-signature header')
  t.match(res.json(), { code: 400, message: /stripe-signature/ })
  res = await app.inject({ method: 'POST', url: '/api/v1/billing/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': 'garbage' }, payload: JSON.stringify(event) })
  await bad('a header that is not a signature', res)
  res = await app.inject({ method: 'POST', url: '/api/v1/billing/webhook', headers: { 'stripe-signature': 't=1,v1=00' } })
  await bad('no body', res)

  // correctly signed, but not an event
  await bad('signed text that is not JSON', await deliver(app, {}, { rawBody: 'this is not json', contentType: 'text/plain' }), 'body is not a Stripe event')
  await bad('signed truncated JSON', await deliver(app, {}, { rawBody: '{"id":' }), 'body is not a Stripe event')
  for (const raw of ['[]', 'null', '123', '"evt"', '{}', '{"id":"evt_x","type":"x","created":"yesterday","data":{"object":{}}}', '{"id":5,"type":"x","created":1,"data":{"object":{}}}', '{"id":"evt_x","type":"x","created":1,"data":{"object":[]}}']) {
    await bad(`signed ${raw}`, await deliver(app, {}, { rawBody: raw }), 'body is not a Stripe event')
  }

  res = await app.inject({
    method: 'POST', url: '/api/v1/billing/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, payload: 'x'.repeat(1024 * 1024 + 10)
  })
  t.equal(res.statusCode, 413, 'over the body limit')
  t.equal(await eventCount(), before, 'no event was recorded')
  t.notOk(await row('sub_never'))
})

t.test('checkout.session.completed: the named subscription is fetched, stored, and given the acquisition code', async (t) => {
  const user = await customer('spring-campaign')
  const subId = 'sub_from_checkout'
  peer.subscriptions.set(subId, subscriptionObject({ id: subId, customer: user.customerId, status: 'active', metadata: {}, currentPeriodEnd: 1_900_000_000 }))
  const from = peer.requests.length
  const session = {
    id: 'cs_test_completed', object: 'checkout.session', mode: 'subscription', status: 'complete', payment_status: 'paid',
    customer: user.customerId, subscription: subId, client_reference_id: user.id,
    metadata: { userId: user.id, acquisition_code: 'spring-campaign' }
  }
  const res = await deliver(app, stripeEvent('checkout.session.completed', session))
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json(), { received: true })

  const sent = peer.requests.slice(from)
  t.same(sent.map((r) => `${r.method} ${r.path}`), [`GET /v1/subscriptions/${subId}`, `POST /v1/subscriptions/${subId}`])
  const update = sent[1]
  t.equal(update.form['metadata[acquisition_code]'], 'spring-campaign')
  t.equal(update.form['metadata[userId]'], user.id)
  t.ok(update.idempotencyKey, 'the update carries an idempotency key')
  t.equal((peer.subscriptions.get(subId)!.metadata as Record<string, string>).acquisition_code, 'spring-campaign')

  t.match(await row(subId), { userId: user.id, stripeCustomerId: user.customerId, status: 'active', priceId: PRICE_ID })
  t.same(await subscriptionOf(user.auth), { status: 'active', currentPeriodEnd: new Date(1_900_000_000 * 1000).toISOString() })
})

t.test('checkout.session.completed in payment mode, or of an unknown user, is acknowledged and ignored', async (t) => {
  let res = await deliver(app, stripeEvent('checkout.session.completed', { id: 'cs_pay', object: 'checkout.session', mode: 'payment', customer: 'cus_x', subscription: null }))
  t.equal(res.statusCode, 200)
  peer.subscriptions.set('sub_stranger', subscriptionObject({ id: 'sub_stranger', customer: 'cus_stranger' }))
  res = await deliver(app, stripeEvent('checkout.session.completed', {
    id: 'cs_stranger', object: 'checkout.session', mode: 'subscription', customer: 'cus_stranger', subscription: 'sub_stranger', metadata: { userId: 'not-a-uuid' }
  }))
  t.equal(res.statusCode, 200)
  t.notOk(await row('sub_stranger'))
})

t.test('subscription created, updated (past_due), deleted', async (t) => {
  const user = await customer('autumn')
  const subId = 'sub_lifecycle'
  const base = { id: subId, customer: user.customerId, metadata: { userId: user.id, acquisition_code: 'autumn' } }
  const t0 = nowS() - 100
  const updatesBefore = peer.calls('POST', `/v1/subscriptions/${subId}`).length

  let res = await deliver(app, stripeEvent('customer.subscription.created', subscriptionObject({ ...base, status: 'active', currentPeriodEnd: 1_800_000_000 }), t0))
  t.equal(res.statusCode, 200)
  t.match(await row(subId), { status: 'active', priceId: PRICE_ID, eventCreated: t0 })
  t.same(await subscriptionOf(user.auth), { status: 'active', currentPeriodEnd: new Date(1_800_000_000 * 1000).toISOString() })

  res = await deliver(app, stripeEvent('customer.subscription.updated', subscriptionObject({ ...base, status: 'past_due', currentPeriodEnd: 1_802_000_000 }), t0 + 10))
  t.equal(res.statusCode, 200)
  t.match(await row(subId), { status: 'past_due', eventCreated: t0 + 10 })
  t.same(await subscriptionOf(user.auth), { status: 'past_due', currentPeriodEnd: new Date(1_802_000_000 * 1000).toISOString() })

  res = await deliver(app, stripeEvent('customer.subscription.deleted', subscriptionObject({ ...base, status: 'canceled', currentPeriodEnd: 1_802_000_000 }), t0 + 20))
  t.equal(res.statusCode, 200)
  t.match(await row(subId), { status: 'canceled' })
  t.same(await subscriptionOf(user.auth), { status: 'canceled', currentPeriodEnd: new Date(1_802_000_000 * 1000).toISOString() })

  // an ended subscription stays ended, even for a later event
  res = await deliver(app, stripeEvent('customer.subscription.updated', subscriptionObject({ ...base, status: 'active' }), t0 + 30))
  t.equal(res.statusCode, 200)
  t.match(await row(subId), { status: 'canceled' })

  t.equal(peer.calls('POST', `/v1/subscriptions/${subId}`).length, updatesBefore, 'metadata that has the code is left alone')
})

t.test('the same event twice: the second delivery is 200 and changes nothing', async (t) => {
  const user = await customer('twice-code')
  const subId = 'sub_twice'
  peer.subscriptions.set(subId, subscriptionObject({ id: subId, customer: user.customerId, metadata: {} }))
  const event = stripeEvent('customer.subscription.created', subscriptionObject({ id: subId, customer: user.customerId, status: 'trialing', metadata: {} }))
  const first = await deliver(app, event)
  t.equal(first.statusCode, 200)
  const stored = await row(subId)
  t.match(stored, { status: 'trialing', userId: user.id })
  const updates = peer.calls('POST', `/v1/subscriptions/${subId}`)
  t.equal(updates.length, 1, 'metadata without the code: one subscriptions.update')
  t.equal(updates[0].form['metadata[acquisition_code]'], 'twice-code')
  const events = await eventCount()

  const second = await deliver(app, event)
  t.equal(second.statusCode, 200)
  t.same(second.json(), { received: true })
  t.equal(peer.calls('POST', `/v1/subscriptions/${subId}`).length, 1, 'no second update')
  t.equal(await eventCount(), events, 'the event is stored once')
  t.same(await row(subId), stored, 'the row is untouched')
  const ids = await db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id))
  t.equal(ids.length, 1)
})

t.test('`updated` delivered before `created`: the older event does not move the state back', async (t) => {
  const user = await customer()
  const subId = 'sub_out_of_order'
  const base = { id: subId, customer: user.customerId, metadata: { userId: user.id } }
  const t0 = nowS() - 50
  const created = stripeEvent('customer.subscription.created', subscriptionObject({ ...base, status: 'active', currentPeriodEnd: 1_800_000_000 }), t0)
  const updated = stripeEvent('customer.subscription.updated', subscriptionObject({ ...base, status: 'past_due', currentPeriodEnd: 1_800_500_000 }), t0 + 5)

  t.equal((await deliver(app, updated)).statusCode, 200)
  t.match(await row(subId), { status: 'past_due', eventCreated: t0 + 5 })
  t.equal((await deliver(app, created)).statusCode, 200, 'the late event is acknowledged')
  t.match(await row(subId), { status: 'past_due', eventCreated: t0 + 5, currentPeriodEnd: new Date(1_800_500_000 * 1000) })
  t.same(await subscriptionOf(user.auth), { status: 'past_due', currentPeriodEnd: new Date(1_800_500_000 * 1000).toISOString() })
  t.equal(peer.calls('POST', `/v1/subscriptions/${subId}`).length, 0, 'a user without a code: no update')

  // within one second, a subscription does not go back to an earlier stage
  const sameSecond = { id: 'sub_same_second', customer: user.customerId, metadata: { userId: user.id } }
  t.equal((await deliver(app, stripeEvent('customer.subscription.updated', subscriptionObject({ ...sameSecond, status: 'active' }), t0))).statusCode, 200)
  t.equal((await deliver(app, stripeEvent('customer.subscription.created', subscriptionObject({ ...sameSecond, status: 'incomplete' }), t0))).statusCode, 200)
  t.match(await row('sub_same_second'), { status: 'active' })
})

t.test('a subscription is matched by its metadata userId when its customer is not known yet', async (t) => {
  const user = await signedInUser(app, { signUpBody: { acquisition_code: 'meta-only' } })
  const { id } = await userInfo(app, user.auth)
  const subId = 'sub_by_metadata'
  peer.subscriptions.set(subId, subscriptionObject({ id: subId, customer: 'cus_dashboard', metadata: { userId: id } }))
  const res = await deliver(app, stripeEvent('customer.subscription.created', subscriptionObject({ id: subId, customer: 'cus_dashboard', metadata: { userId: id } })))
  t.equal(res.statusCode, 200)
  t.match(await row(subId), { userId: id, stripeCustomerId: 'cus_dashboard', status: 'active' })
  t.equal(peer.calls('POST', `/v1/subscriptions/${subId}`).at(-1)?.form['metadata[acquisition_code]'], 'meta-only')
})

t.test('other events, malformed subscriptions and unknown users are acknowledged and change nothing', async (t) => {
  const cases = [
    stripeEvent('invoice.paid', { id: 'in_1', object: 'invoice' }),
    stripeEvent('customer.subscription.updated', { id: 'sub_no_status', object: 'subscription' }),
    stripeEvent('customer.subscription.updated', { id: 42, status: 'active' }),
    stripeEvent('customer.subscription.created', subscriptionObject({ id: 'sub_nobody', customer: 'cus_nobody', metadata: { userId: 'robert"); drop table users;--' } })),
    stripeEvent('customer.subscription.created', subscriptionObject({ id: 'sub_ghost', customer: 'cus_ghost', metadata: { userId: '00000000-0000-4000-8000-000000000000' } }))
  ]
  for (const event of cases) {
    const res = await deliver(app, event)
    t.equal(res.statusCode, 200, `${event.type}: ${res.body}`)
  }
  t.notOk(await row('sub_nobody'))
  t.notOk(await row('sub_ghost'))
})

t.test('Stripe failing during the metadata update: 503, nothing recorded, the redelivery applies it', async (t) => {
  const user = await customer('retry-code')
  const subId = 'sub_retry'
  peer.subscriptions.set(subId, subscriptionObject({ id: subId, customer: user.customerId, metadata: {} }))
  const event = stripeEvent('customer.subscription.created', subscriptionObject({ id: subId, customer: user.customerId, metadata: {} }))
  peer.fail(500)
  t.teardown(() => peer.fail(undefined))
  let res = await deliver(app, event)
  t.equal(res.statusCode, 503)
  t.has(res.json(), { code: 503, message: 'payment provider unavailable' })
  t.notOk(await row(subId))
  peer.fail(undefined)
  res = await deliver(app, event)
  t.equal(res.statusCode, 200)
  t.match(await row(subId), { status: 'active' })
  const keys = peer.calls('POST', `/v1/subscriptions/${subId}`).map((r) => r.idempotencyKey)
  t.equal(new Set(keys).size, 1, 'the retried update reuses its idempotency key')
})

t.test('Stripe refusing the metadata update (4xx) does not hold the state back', async (t) => {
  const user = await customer('refused-code')
  const subId = 'sub_refused'
  const event = stripeEvent('customer.subscription.created', subscriptionObject({ id: subId, customer: user.customerId, metadata: {} }))
  peer.fail(400)
  t.teardown(() => peer.fail(undefined))
  const res = await deliver(app, event)
  peer.fail(undefined)
  t.equal(res.statusCode, 200)
  t.equal(peer.calls('POST', `/v1/subscriptions/${subId}`).length, 1, 'the update was tried')
  t.match(await row(subId), { status: 'active', userId: user.id })
})

t.test('checkout.session.completed naming a subscription Stripe does not have is acknowledged', async (t) => {
  const user = await customer()
  const res = await deliver(app, stripeEvent('checkout.session.completed', {
    id: 'cs_missing_sub', object: 'checkout.session', mode: 'subscription', customer: user.customerId, subscription: 'sub_gone', metadata: { userId: user.id }
  }))
  t.equal(res.statusCode, 200)
  t.equal(peer.calls('GET', '/v1/subscriptions/sub_gone').length, 1)
  t.notOk(await row('sub_gone'))
  t.equal((await userInfo(app, user.auth)).subscription, null)
})
