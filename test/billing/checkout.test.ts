// POST /billing/checkout and /billing/portal with the official Stripe client against a local server
// that records what it is sent.
import t from '../tap.ts'
import { stripeClientOptions } from '../../src/services/billing/stripe.ts'
import { build, signedInUser, testConfig } from '../helper.ts'
import { startStripe, subscriptionObject } from '../peers/stripe.ts'
import { deliver, PRICE_ID, stripeEnv, stripeEvent, userInfo } from './support.ts'

const peer = await startStripe(t)
const app = await build(t, stripeEnv(peer))

const URLS = { successUrl: 'https://localhost:8443/?paid={CHECKOUT_SESSION_ID}', cancelUrl: 'https://localhost:8443/' }
const checkout = (auth: Record<string, string>, payload: unknown = URLS) =>
  app.inject({ method: 'POST', url: '/api/v1/billing/checkout', headers: auth, payload: payload as object })
const portal = (auth: Record<string, string>, payload?: unknown) =>
  app.inject({ method: 'POST', url: '/api/v1/billing/portal', headers: auth, ...(payload !== undefined ? { payload: payload as object } : {}) })

t.test('the first checkout creates the customer; both carry userId and acquisition_code as metadata', async (t) => {
  const user = await signedInUser(app, { signUpBody: { acquisition_code: 'spring-campaign' } })
  const { id } = await userInfo(app, user.auth)
  const from = peer.requests.length

  const res = await checkout(user.auth)
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), { url: /^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/ })
  const sent = peer.requests.slice(from)
  t.same(sent.map((r) => `${r.method} ${r.path}`), ['POST /v1/customers', 'POST /v1/checkout/sessions'])
  const [customer, session] = sent
  t.equal(customer.authorization, 'Bearer sk_test_local')
  t.equal(customer.form.email, user.email)
  t.equal(customer.form['metadata[userId]'], id)
  t.equal(customer.form['metadata[acquisition_code]'], 'spring-campaign')

  t.equal(session.form.mode, 'subscription')
  t.equal(session.form['line_items[0][price]'], PRICE_ID)
  t.equal(session.form['line_items[0][quantity]'], '1')
  t.match(session.form.customer, /^cus_local/)
  t.equal(session.form.client_reference_id, id)
  t.equal(session.form['metadata[userId]'], id)
  t.equal(session.form['metadata[acquisition_code]'], 'spring-campaign')
  t.equal(session.form['subscription_data[metadata][userId]'], id)
  t.equal(session.form['subscription_data[metadata][acquisition_code]'], 'spring-campaign')
  t.equal(session.form.success_url, URLS.successUrl, 'the {CHECKOUT_SESSION_ID} placeholder goes through unencoded')
  t.equal(session.form.cancel_url, URLS.cancelUrl)
  t.ok(customer.idempotencyKey, 'customer creation carries an idempotency key')
  t.ok(session.idempotencyKey, 'session creation carries an idempotency key')

  // a second checkout: the same customer, a new session with a key of its own
  const next = peer.requests.length
  t.equal((await checkout(user.auth)).statusCode, 200)
  const again = peer.requests.slice(next)
  t.same(again.map((r) => `${r.method} ${r.path}`), ['POST /v1/checkout/sessions'], 'one customer per user')
  t.equal(again[0].form.customer, session.form.customer)
  t.ok(again[0].idempotencyKey)
  t.not(again[0].idempotencyKey, session.idempotencyKey, 'one idempotency key per request')
})

t.test('two first checkouts at once still make one customer', async (t) => {
  const user = await signedInUser(app, { signUpBody: { acquisition_code: 'race' } })
  const from = peer.requests.length
  const answers = await Promise.all([checkout(user.auth), checkout(user.auth)])
  t.same(answers.map((r) => r.statusCode), [200, 200])
  const sent = peer.requests.slice(from)
  const creates = sent.filter((r) => r.path === '/v1/customers')
  t.ok(creates.length >= 1)
  t.equal(new Set(creates.map((r) => r.idempotencyKey)).size, 1, 'customer creation is keyed by the user')
  const customers = new Set(sent.filter((r) => r.path === '/v1/checkout/sessions').map((r) => r.form.customer))
  t.equal(customers.size, 1, 'both sessions are for the same customer')
})

t.test('the client is pointed at STRIPE_API_URL: protocol, host and port', async (t) => {
  t.match(stripeClientOptions('http://127.0.0.1:12111'), { protocol: 'http', host: '127.0.0.1', port: 12111 })
  t.match(stripeClientOptions('https://stripe.internal'), { protocol: 'https', host: 'stripe.internal', port: 443 })
  t.match(stripeClientOptions('http://[::1]:8080/'), { protocol: 'http', host: '::1', port: 8080 })
  const standard = stripeClientOptions('')
  t.equal(standard.host, undefined, "empty: Stripe's own API")
  t.ok(standard.maxNetworkRetries! > 0, 'retries (with the same idempotency key)')
})

t.test('a user without an acquisition code sends none, not an empty string', async (t) => {
  const user = await signedInUser(app)
  const { id } = await userInfo(app, user.auth)
  const from = peer.requests.length
  t.equal((await checkout(user.auth)).statusCode, 200)
  const sent = peer.requests.slice(from)
  t.equal(sent.length, 2)
  for (const r of sent) {
    t.same(Object.keys(r.form).filter((k) => k.includes('acquisition_code')), [], `${r.path} has no acquisition_code`)
    t.equal(r.form['metadata[userId]'], id)
  }
  t.equal(sent[1].form['subscription_data[metadata][userId]'], id)
})

t.test('the customer portal', async (t) => {
  const user = await signedInUser(app)
  let res = await portal(user.auth, {})
  t.equal(res.statusCode, 409, 'no customer yet')
  t.has(res.json(), { code: 409, message: 'no billing account yet: subscribe first' })

  t.equal((await checkout(user.auth)).statusCode, 200)
  const customer = peer.requests.at(-1)!.form.customer
  const from = peer.requests.length
  res = await portal(user.auth)
  t.equal(res.statusCode, 200, 'no body at all is fine')
  t.match(res.json(), { url: /^https:\/\/billing\.stripe\.test\/p\/session\// })
  const [sent] = peer.requests.slice(from)
  t.equal(sent.path, '/v1/billing_portal/sessions')
  t.equal(sent.form.customer, customer)
  t.equal(sent.form.return_url, 'https://localhost:8443/')
  t.ok(sent.idempotencyKey)

  res = await portal(user.auth, { returnUrl: 'https://localhost:8443/account' })
  t.equal(res.statusCode, 200)
  t.equal(peer.requests.at(-1)!.form.return_url, 'https://localhost:8443/account')
})

t.test('bad input is 4xx, never 500, and reaches no Stripe call', async (t) => {
  const user = await signedInUser(app)
  const from = peer.requests.length
  const cases: Array<[string, unknown, number]> = [
    ['successUrl a number', { ...URLS, successUrl: 42 }, 400],
    ['cancelUrl missing', { successUrl: URLS.successUrl }, 400],
    ['successUrl not http', { ...URLS, successUrl: 'javascript:alert(1)' }, 400],
    ['successUrl on another origin', { ...URLS, successUrl: 'https://evil.example/' }, 400],
    ['cancelUrl unparseable', { ...URLS, cancelUrl: 'https://exa mple.com:99999/' }, 400],
    ['an array body', [URLS], 400],
    ['a huge URL', { ...URLS, successUrl: `https://localhost:8443/${'a'.repeat(3000)}` }, 400]
  ]
  for (const [name, payload, status] of cases) {
    const res = await checkout(user.auth, payload)
    t.equal(res.statusCode, status, `${name}: ${res.body}`)
    t.equal(res.json().code, status)
  }
  let res = await app.inject({ method: 'POST', url: '/api/v1/billing/checkout', headers: { ...user.auth, 'content-type': 'application/json' }, payload: '{"successUrl":' })
  t.equal(res.statusCode, 400, 'not JSON')
  res = await app.inject({ method: 'POST', url: '/api/v1/billing/checkout', headers: { ...user.auth, 'content-type': 'text/plain' }, payload: 'hello' })
  t.equal(res.statusCode, 415, 'not JSON at all')
  res = await portal(user.auth, { returnUrl: 'https://evil.example/' })
  t.equal(res.statusCode, 400)
  t.has(res.json(), { code: 400, message: "returnUrl must be on this service's origin" })
  res = await portal(user.auth, { returnUrl: false })
  t.equal(res.statusCode, 400)

  t.equal((await checkout({})).statusCode, 401, 'no token')
  t.equal((await checkout({ authorization: 'Bearer nope' })).statusCode, 401, 'bad token')
  t.equal((await portal({})).statusCode, 401)
  t.equal(peer.requests.length, from, 'nothing reached Stripe')
})

t.test('Stripe failing is 503 without its text', async (t) => {
  const user = await signedInUser(app)
  peer.fail(500)
  t.teardown(() => peer.fail(undefined))
  const res = await checkout(user.auth)
  t.equal(res.statusCode, 503)
  t.has(res.json(), { code: 503, message: 'payment provider unavailable' })
  peer.fail(400)
  t.equal((await checkout(user.auth)).statusCode, 503)
  peer.fail(undefined)
  t.equal((await checkout(user.auth)).statusCode, 200, 'works again once Stripe does')
})

t.test('a subscribed user is sent to the portal, not to a second subscription', async (t) => {
  const user = await signedInUser(app)
  t.equal((await checkout(user.auth)).statusCode, 200)
  const customer = peer.requests.at(-1)!.form.customer
  const sub = subscriptionObject({ id: 'sub_checkout_test', customer, status: 'active', metadata: { userId: (await userInfo(app, user.auth)).id } })
  t.equal((await deliver(app, stripeEvent('customer.subscription.created', sub))).statusCode, 200)
  const res = await checkout(user.auth)
  t.equal(res.statusCode, 409)
  t.has(res.json(), { code: 409, message: 'already subscribed: manage the subscription in the customer portal' })
})

t.test('without STRIPE_SECRET_KEY every billing route is 503 `billing is not configured`', async (t) => {
  const bare = await build(t)
  const user = await signedInUser(bare)
  const answers = await Promise.all([
    bare.inject({ method: 'POST', url: '/api/v1/billing/checkout', headers: user.auth, payload: URLS }),
    bare.inject({ method: 'POST', url: '/api/v1/billing/portal', headers: user.auth, payload: {} }),
    bare.inject({ method: 'POST', url: '/api/v1/billing/webhook', headers: { 'stripe-signature': 't=1,v1=00' }, payload: '{}' }),
    bare.inject({ method: 'POST', url: '/api/v1/billing/webhook', payload: 'not json' })
  ])
  for (const res of answers) {
    t.equal(res.statusCode, 503)
    t.has(res.json(), { code: 503, message: 'billing is not configured' })
  }
})

t.test('configuration: all three Stripe settings or none; STRIPE_API_URL is a host', async (t) => {
  t.throws(() => testConfig(t, { STRIPE_SECRET_KEY: 'sk_test_x' }), /must be set together/)
  t.throws(() => testConfig(t, { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_PRICE_ID: 'price_x' }), /must be set together/)
  t.throws(() => testConfig(t, { STRIPE_API_URL: 'http://127.0.0.1:1234/v1' }), /STRIPE_API_URL/)
  t.throws(() => testConfig(t, { STRIPE_API_URL: 'ftp://127.0.0.1' }), /STRIPE_API_URL/)
  t.equal(testConfig(t, { STRIPE_API_URL: 'http://127.0.0.1:1234' }).stripe.apiUrl, 'http://127.0.0.1:1234')
})
