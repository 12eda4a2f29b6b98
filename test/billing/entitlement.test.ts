// An active or trialing subscription lets POST /report/{id}/generate run without credits, and
// GET /auth/info shows it.
import t from '../tap.ts'
import { eq } from 'drizzle-orm'
import { users } from '../../src/db/schema/index.ts'
import { build, signedInUser } from '../helper.ts'
import { startStripe, subscriptionObject } from '../peers/stripe.ts'
import { seedReportData } from '../reports/seed.ts'
import { deliver, nowS, stripeEnv, stripeEvent, userInfo } from './support.ts'

const peer = await startStripe(t)
// WORKERS 0: generation stays queued, which is all these tests need to see
const app = await build(t, { ...stripeEnv(peer), SIGNUP_FREE_REPORTS: '0' })
await seedReportData(app.database.db)

async function subscriber (acquisitionCode?: string) {
  const user = await signedInUser(app, acquisitionCode ? { signUpBody: { acquisition_code: acquisitionCode } } : {})
  const { id } = await userInfo(app, user.auth)
  const res = await app.inject({
    method: 'POST', url: '/api/v1/billing/checkout', headers: user.auth,
    payload: { successUrl: 'https://localhost:8443/done', cancelUrl: 'https://localhost:8443/' }
  })
  if (res.statusCode !== 200) throw new Error(res.body)
  return { ...user, id, customerId: peer.calls('POST', '/v1/checkout/sessions').at(-1)!.form.customer }
}

async function generate (auth: Record<string, string>) {
  const created = await app.inject({ method: 'POST', url: '/api/v1/report', headers: auth, payload: { profiles: [{ source: 'ig', username: 'jdoe' }] } })
  if (created.statusCode !== 201) throw new Error(created.body)
  return app.inject({ method: 'POST', url: `/api/v1/report/${created.json().id}/generate`, headers: auth })
}

t.test('zero credits: 402 before the subscription, 202 while it is active, 402 again after deletion', async (t) => {
  const user = await subscriber('entitle-code')
  const subId = 'sub_entitlement'
  const sub = (status: string) => subscriptionObject({ id: subId, customer: user.customerId, status, metadata: { userId: user.id, acquisition_code: 'entitle-code' }, currentPeriodEnd: 1_850_000_000 })
  const t0 = nowS() - 60

  let info = await userInfo(app, user.auth)
  t.equal(info.reportCredits, 0)
  t.equal(info.subscription, null, 'no subscription yet')
  let res = await generate(user.auth)
  t.equal(res.statusCode, 402)
  t.has(res.json(), { code: 402, message: 'payment required' })

  t.equal((await deliver(app, stripeEvent('customer.subscription.created', sub('active'), t0))).statusCode, 200)
  info = await userInfo(app, user.auth)
  t.same(info.subscription, { status: 'active', currentPeriodEnd: new Date(1_850_000_000 * 1000).toISOString() })
  res = await generate(user.auth)
  t.equal(res.statusCode, 202, res.body)
  t.equal(res.json().status, 'queued')
  t.equal((await generate(user.auth)).statusCode, 202, 'and again: a subscription has no count')
  t.equal((await userInfo(app, user.auth)).reportCredits, 0, 'no credit was taken (none went negative)')

  t.equal((await deliver(app, stripeEvent('customer.subscription.deleted', sub('canceled'), t0 + 10))).statusCode, 200)
  info = await userInfo(app, user.auth)
  t.equal(info.subscription.status, 'canceled')
  res = await generate(user.auth)
  t.equal(res.statusCode, 402, 'payment required again')
})

t.test('trialing entitles; past_due does not', async (t) => {
  const user = await subscriber()
  const subId = 'sub_trial'
  const sub = (status: string) => subscriptionObject({ id: subId, customer: user.customerId, status, metadata: { userId: user.id } })
  const t0 = nowS() - 60
  t.equal((await deliver(app, stripeEvent('customer.subscription.created', sub('trialing'), t0))).statusCode, 200)
  t.equal((await generate(user.auth)).statusCode, 202)
  t.equal((await deliver(app, stripeEvent('customer.subscription.updated', sub('past_due'), t0 + 5))).statusCode, 200)
  t.equal((await userInfo(app, user.auth)).subscription.status, 'past_due')
  t.equal((await generate(user.auth)).statusCode, 402)
})

t.test('a subscriber keeps their credits', async (t) => {
  const user = await subscriber()
  await app.database.db.update(users).set({ reportCredits: 2 }).where(eq(users.id, user.id))
  const sub = subscriptionObject({ id: 'sub_keeps_credits', customer: user.customerId, status: 'active', metadata: { userId: user.id } })
  t.equal((await deliver(app, stripeEvent('customer.subscription.created', sub))).statusCode, 200)
  t.equal((await generate(user.auth)).statusCode, 202)
  t.equal((await userInfo(app, user.auth)).reportCredits, 2)
})

t.test('with two subscriptions, the one that entitles is shown and counts', async (t) => {
  const user = await subscriber()
  const t0 = nowS() - 60
  const old = subscriptionObject({ id: 'sub_two_old', customer: user.customerId, status: 'canceled', metadata: { userId: user.id } })
  const current = subscriptionObject({ id: 'sub_two_new', customer: user.customerId, status: 'active', metadata: { userId: user.id }, currentPeriodEnd: 1_860_000_000 })
  t.equal((await deliver(app, stripeEvent('customer.subscription.created', current, t0))).statusCode, 200)
  // the older subscription's end arrives last
  t.equal((await deliver(app, stripeEvent('customer.subscription.deleted', old, t0 + 30))).statusCode, 200)
  t.same((await userInfo(app, user.auth)).subscription, { status: 'active', currentPeriodEnd: new Date(1_860_000_000 * 1000).toISOString() })
  t.equal((await generate(user.auth)).statusCode, 202)
})
