// DELETE /auth/account: proven by the password, or for a Google-only account by a fresh
// credential of its Google account; everything of the user goes, its JWTs are refused at once, a
// running subscription is cancelled at period end through Stripe (the local peer), the Stripe
// customer is left alone, one audit row keeps a keyed hash of the address (HMAC-SHA-256 under a key
// derived from MFA_ENCRYPTION_KEY) and none keeps the address, the user's earlier rows lose their IP
// address and User-Agent, and the address can sign up again. One app for the file.
import { createHash, createHmac, hkdfSync } from 'node:crypto'
import t from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, GOOD_PASSWORD, signedInUser, uniqueEmail } from '../helper.ts'
import { startStripe, subscriptionObject, type StripePeer } from '../peers/stripe.ts'
import { startGoogleCerts, TEST_CLIENT_ID, type GoogleCertsPeer } from '../peers/google-certs.ts'
import { stripeEnv } from '../billing/support.ts'
import { ACCESS_DENIED, claims, FAST_ARGON2, info, refresh } from './support.ts'

let app: FastifyInstance
// test/helper.ts's MFA_ENCRYPTION_KEY
const TEST_MFA_KEY = 'test-mfa-encryption-key-0123456789abcdef'
let stripe: StripePeer
let google: GoogleCertsPeer

t.before(async () => {
  stripe = await startStripe(t)
  google = await startGoogleCerts()
  t.teardown(() => google.close())
  app = await build(t, { ...FAST_ARGON2, ...stripeEnv(stripe), GOOGLE_CLIENT_IDS: TEST_CLIENT_ID, GOOGLE_CERTS_URL: google.url })
})

const remove = (auth: Record<string, string>, payload?: Record<string, unknown>) =>
  app.inject({ method: 'DELETE', url: '/api/v1/auth/account', headers: auth, ...(payload ? { payload } : {}) })
const count = async (sql: string, params: unknown[]) => Number((await app.database.query<{ n: number | string }>(sql, params))[0].n)

t.test('with the password: everything of the user goes, the subscription is cancelled at period end, the address is free again', async (t) => {
  const user = await signedInUser(app)
  const other = await signedInUser(app)
  const userId = claims(user.token).sub as string
  const second = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: user.password, token: true } })
  // a report with an event, a Stripe customer and a running subscription
  const [report] = await app.database.query<{ id: string }>("insert into reports (user_id, profiles) values ($1, '[]') returning id", [userId])
  await app.database.query("insert into report_events (report_id, seq, kind, data) values ($1, 1, 'progress', '{}')", [report.id])
  await app.database.query('update users set stripe_customer_id = $2 where id = $1', [userId, `cus_del_${process.pid}`])
  const subId = `sub_del_${process.pid}`
  stripe.subscriptions.set(subId, subscriptionObject({ id: subId, customer: `cus_del_${process.pid}` }))
  await app.database.query("insert into subscriptions (stripe_subscription_id, user_id, stripe_customer_id, status, event_created) values ($1, $2, $3, 'active', 1)",
    [subId, userId, `cus_del_${process.pid}`])
  const endedSub = `sub_old_${process.pid}`
  await app.database.query("insert into subscriptions (stripe_subscription_id, user_id, status, event_created) values ($1, $2, 'canceled', 1)", [endedSub, userId])

  const wrong = await remove(user.auth, { password: 'not the password' })
  t.equal(wrong.statusCode, 403)
  t.has(wrong.json(), { code: 403, message: 'the password is wrong' })
  t.equal((await info(app, user.token)).statusCode, 200, 'nothing happened')
  const none = await remove(user.auth, {})
  t.equal(none.statusCode, 400)
  t.has(none.json(), { code: 400, message: 'send the password, or clientId and credential for an account without one' })
  t.equal((await remove({}, { password: user.password })).statusCode, 401, 'Bearer required')

  const res = await remove(user.auth, { password: user.password })
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  t.match(String(res.headers['set-cookie']), /^sid=;/, 'the cookie is cleared')
  t.has((await info(app, user.token)).json(), ACCESS_DENIED, 'its JWT is refused at once')
  t.has((await info(app, second.json().token)).json(), ACCESS_DENIED, 'and every other JWT of the account')
  t.equal((await refresh(app, user.cookie)).statusCode, 401, 'its cookie refreshes nothing')

  for (const [table, column] of [['users', 'id'], ['sessions', 'user_id'], ['reports', 'user_id'], ['subscriptions', 'user_id'], ['auth_tokens', 'user_id']]) {
    t.equal(await count(`select count(*) as n from ${table} where ${column} = $1`, [userId]), 0, `no ${table} row is left`)
  }
  t.equal(await count('select count(*) as n from report_events where report_id = $1', [report.id]), 0, 'nor report events')
  t.equal(await count('select count(*) as n from session_revocations where user_id = $1', [userId]), 2, 'both sessions were revoked')

  const cancels = stripe.calls('POST', `/v1/subscriptions/${subId}`)
  t.equal(cancels.length, 1, 'the running subscription was updated once')
  t.equal(cancels[0].form.cancel_at_period_end, 'true', 'to cancel at the end of its period')
  t.equal(stripe.subscriptions.get(subId)!.cancel_at_period_end, true)
  t.equal(stripe.calls('POST', `/v1/subscriptions/${endedSub}`).length, 0, 'an ended one is left alone')
  t.equal(stripe.requests.filter((r) => r.path.startsWith('/v1/customers')).length, 0, 'the Stripe customer is not touched')

  // the key as docs/decisions/accounts.md, Audit trail, names it: HKDF-SHA-256 of
  // MFA_ENCRYPTION_KEY, no salt, its own label
  const key = Buffer.from(hkdfSync('sha256', TEST_MFA_KEY, Buffer.alloc(0), 'pir audit email hmac v1', 32))
  const hash = createHmac('sha256', key).update(user.email).digest('hex')
  const audit = await app.database.query<{ kind: string, email_hash: string | null, ip: string | null, user_agent: string | null }>(
    'select kind, email_hash, ip, user_agent from audit_events where user_id = $1 and kind = $2', [userId, 'account.deleted'])
  t.same(audit, [{ kind: 'account.deleted', email_hash: hash, ip: null, user_agent: null }], 'one account.deleted row with the keyed hash of the address')
  t.equal(await count('select count(*) as n from audit_events where email_hash = $1', [createHash('sha256').update(user.email).digest('hex')]), 0,
    'not the plain SHA-256 that anyone knowing the address could compute')
  t.ok(await count('select count(*) as n from audit_events where user_id = $1', [userId]) >= 3, 'the earlier rows stay (sign-up, sign-ins, failure)')
  t.equal(await count('select count(*) as n from audit_events where user_id = $1 and (ip is not null or user_agent is not null)', [userId]), 0,
    'none of them keeps an IP address or a User-Agent')
  t.ok(await count('select count(*) as n from audit_events where user_id = $1 and ip is not null', [claims(other.token).sub]) > 0, "another user's rows keep theirs")
  t.equal(await count('select count(*) as n from audit_events where email_hash = $1 or user_agent like $2 or ip like $2', [user.email, `%${user.email}%`]), 0, 'no audit row keeps the address')

  t.equal((await info(app, other.token)).statusCode, 200, 'another user is untouched')
  const again = await app.inject({ method: 'POST', url: '/api/v1/auth/signup', payload: { email: user.email, password: GOOD_PASSWORD, token: 'captcha' } })
  t.same(again.json(), { status: 'success' })
  t.equal(await count('select count(*) as n from users where email = $1', [user.email]), 1, 'the address registered again: a new account')
})

t.test('Stripe failing: 503 and nothing is deleted', async (t) => {
  const user = await signedInUser(app)
  const userId = claims(user.token).sub as string
  const subId = `sub_fail_${process.pid}`
  await app.database.query("insert into subscriptions (stripe_subscription_id, user_id, status, event_created) values ($1, $2, 'active', 1)", [subId, userId])
  stripe.fail(500)
  t.teardown(() => stripe.fail(undefined))
  const res = await remove(user.auth, { password: user.password })
  t.equal(res.statusCode, 503)
  t.has(res.json(), { code: 503, message: 'payment provider unavailable' })
  t.equal((await info(app, user.token)).statusCode, 200, 'the account is still there')
})

t.test('a Google-only account proves itself with a fresh credential of its own Google account', async (t) => {
  const email = uniqueEmail('g-delete')
  const sub = `2${String(process.pid).padStart(8, '0')}0000000001`
  const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/idp', payload: { clientId: TEST_CLIENT_ID, select_by: 'btn', token: true, credential: google.idToken({ sub, email }) } })
  const auth = { authorization: `Bearer ${signin.json().token}` }

  const withPassword = await remove(auth, { password: 'anything at all' })
  t.equal(withPassword.statusCode, 403)
  t.has(withPassword.json(), { code: 403, message: 'this account has no password: send a Google credential (clientId, credential) instead' })
  const nonce = async () => (await app.inject({ method: 'POST', url: '/api/v1/auth/google/nonce', headers: auth })).json().nonce as string
  const otherGoogle = await remove(auth, { clientId: TEST_CLIENT_ID, credential: google.idToken({ sub: `${sub}9`, email, nonce: await nonce() }) })
  t.equal(otherGoogle.statusCode, 403, 'a credential of another Google account')
  t.has(otherGoogle.json(), { code: 403, message: 'the Google credential is not one of the Google account linked to this account' })
  const forged = await remove(auth, { clientId: TEST_CLIENT_ID, credential: google.idToken({ sub, email, nonce: await nonce() }, { foreignKey: true }) })
  t.equal(forged.statusCode, 403, 'a credential Google did not sign')
  const expired = await remove(auth, { clientId: TEST_CLIENT_ID, credential: google.idToken({ sub, email, iat: 1_600_000_000, exp: 1_600_003_600, nonce: await nonce() }) })
  t.equal(expired.statusCode, 403, 'an expired credential')
  const iat = Math.floor(Date.now() / 1000) - 600
  const old = await remove(auth, { clientId: TEST_CLIENT_ID, credential: google.idToken({ sub, email, iat, exp: iat + 3600, nonce: await nonce() }) })
  t.has(old.json(), { code: 403, message: 'the Google credential is too old: continue with Google again' }, 'an unexpired credential issued 10 minutes ago')
  const noNonce = await remove(auth, { clientId: TEST_CLIENT_ID, credential: google.idToken({ sub, email }) })
  t.has(noNonce.json(), { code: 403, message: 'the Google credential does not carry a nonce this service issued (POST /auth/google/nonce), or its nonce was used' },
    'a fresh credential without an issued nonce')
  t.equal((await info(app, signin.json().token)).statusCode, 200, 'still there')

  const res = await remove(auth, { clientId: TEST_CLIENT_ID, credential: google.idToken({ sub, email, nonce: await nonce() }) })
  t.equal(res.statusCode, 204)
  t.equal(await count('select count(*) as n from users where email = $1', [email]), 0, 'deleted')
  t.has((await info(app, signin.json().token)).json(), ACCESS_DENIED)
})
