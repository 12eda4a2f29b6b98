// Secrets never leak into the logs. One app logging at trace level
// into memory goes through every flow that handles a secret: sign-up and sign-in (password, JWT,
// session cookie), a token signed with a rotated-out secret, refresh, e-mail confirmation and password
// recovery (the mailed link secrets), Google sign-in (the ID token), Stripe (the API key, the webhook
// secret and signature, a failing Stripe), ingest (its token), and finally the database failing under
// a cookie request (Drizzle's error text carries the query's parameters). Then no captured line may
// hold any of those values, nor anything shaped like a secret. The detector is checked first, so a
// clean result is not the result of a blind one.
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from '../tap.ts'
import { createSigner } from 'fast-jwt'
import { build, logCapture, sessionCookie, signedInUser, uniqueEmail } from '../helper.ts'
import { createLogCapture } from '../log-capture.ts'
import { startGoogleCerts, TEST_CLIENT_ID } from '../peers/google-certs.ts'
import { startStripe, subscriptionObject } from '../peers/stripe.ts'
import { until } from '../peers/wait.ts'
import { deliver, stripeEvent } from '../billing/support.ts'

const random = (n: number) => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x')
const PUBLIC_URL = 'https://reports.example'
const PREVIOUS_JWT_SECRET = `previous-jwt-secret-${random(24)}`
const STRIPE_KEY = `sk_test_${random(24)}`
const WEBHOOK_SECRET = `whsec_${random(24)}`
const INGEST_TOKEN = `ingest-${random(24)}`
const PASSWORD = `leak test passphrase ${random(6)}`
const NEW_PASSWORD = `a recovered passphrase ${random(6)}`

t.test('the detector flags every kind of secret, and nothing else', async (t) => {
  const c = createLogCapture()
  const jwt = createSigner({ key: 'k'.repeat(32), algorithm: 'HS256' })({ sub: 'u', sid: 's' })
  const leaking = [
    `{"msg":"x","token":"${jwt}"}`,
    '{"msg":"x","header":"Bearer abcdefghijklmnopqrstuvwxyz"}',
    '{"msg":"x","cookie":"sid=rXNQ1xJWluB9RWEcIZpJCCwxhJO_iuDu.0x0KoSIjsvgv81CNO1"}',
    `{"msg":"x","url":"/api/v1/auth/recovery/${random(32)}"}`,
    `{"msg":"x","link":"https://reports.example/confirm/${random(32)}"}`,
    `{"msg":"x","key":"${STRIPE_KEY}"}`,
    `{"msg":"x","secret":"${WEBHOOK_SECRET}"}`,
    '{"msg":"-----BEGIN PRIVATE KEY-----"}',
    '{"msg":"x","password":"hunter22"}',
    `{"msg":"x","note":"${PASSWORD}"}`
  ]
  c.secret(PASSWORD)
  for (const line of leaking) c.stream.write(line)
  t.equal(c.leaks().length, leaking.length, 'each leaking line is caught')
  const clean = createLogCapture()
  for (const line of [
    '{"msg":"incoming request","req":{"url":"/api/v1/auth/recovery/[redacted]"}}',
    '{"msg":"x","password":"[redacted]","req":{"headers":{"authorization":"[redacted]","cookie":"[redacted]"}}}',
    '{"msg":"x","url":"/api/v1/auth/confirm/resend"}',
    '{"msg":"x","message":"body/password must NOT have fewer than 8 characters"}'
  ]) clean.stream.write(line)
  t.same(clean.leaks(), [], 'redacted values and ordinary words are not')
})

t.test('every secret-handling flow, and then not one secret in any log line', async (t) => {
  const google = await startGoogleCerts()
  t.teardown(() => google.close())
  const stripe = await startStripe(t)
  const app = await build(t, {
    PUBLIC_URL,
    JWT_PREVIOUS_SECRETS: PREVIOUS_JWT_SECRET,
    GOOGLE_CLIENT_IDS: TEST_CLIENT_ID,
    GOOGLE_CERTS_URL: google.url,
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_ID: 'price_test_monthly',
    STRIPE_API_URL: stripe.url,
    INGEST_TOKEN,
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1'
  })
  const capture = logCapture(app)!
  t.ok(capture, 'build() captures the app\'s log')
  const outbox = app.config.mail.outboxDir

  /** the secret of the newest outbox mail to `email` whose link has `kind` */
  async function mailedSecret (email: string, kind: 'confirm' | 'recovery', skip: string[] = []): Promise<string> {
    return await until(() => {
      let files: string[] = []
      try { files = readdirSync(outbox) } catch { return undefined }
      for (const f of files) {
        // quoted-printable: undo soft line breaks and =XX escapes
        const text = readFileSync(join(outbox, f), 'utf8').replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
        if (!text.includes(email)) continue
        const m = new RegExp(`/${kind}/([A-Za-z0-9_-]{43})`).exec(text)
        if (m && !skip.includes(m[1])) return m[1]
      }
      return undefined
    }, { what: `the ${kind} mail`, timeoutMs: 10_000 })
  }

  // sign-up and sign-in: the password, the JWT, the cookie (signedInUser registers them)
  const user = await signedInUser(app, { password: PASSWORD })
  const wrong = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: `${PASSWORD}!` } })
  t.equal(wrong.json().status, 'error', 'a wrong password is refused')
  capture.secret(`${PASSWORD}!`)

  // Bearer: good, tampered, and signed with the previous secret
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: user.auth })).statusCode, 200)
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${user.token}x` } })).statusCode, 401)
  const claims = JSON.parse(Buffer.from(user.token.split('.')[1], 'base64url').toString()) as { sub: string, sid: string }
  const old = createSigner({ key: PREVIOUS_JWT_SECRET, algorithm: 'HS256', expiresIn: 60_000 })({ sub: claims.sub, sid: claims.sid })
  capture.secret(old)
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${old}` } })).statusCode, 200, 'a rotated-out secret still verifies')

  // refresh by cookie: a new JWT
  const refreshed = await app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', headers: { cookie: user.cookie } })
  t.equal(refreshed.statusCode, 200, refreshed.body)
  capture.secret(refreshed.json().token)

  // confirmation: the mailed secret in the path
  const confirm = await mailedSecret(user.email, 'confirm')
  capture.secret(confirm)
  // as a person follows it: the page the link opens, then the call its script makes
  t.equal((await app.inject({ url: `/confirm/${confirm}` })).statusCode, 200, 'the confirmation page')
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/auth/confirm/${confirm}` })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/auth/confirm/${random(32)}` })).statusCode, 404)

  // recovery: request, check and use the mailed link
  t.same((await app.inject({ method: 'POST', url: '/api/v1/auth/recovery', payload: { email: user.email } })).json(), { status: 'success' })
  const recovery = await mailedSecret(user.email, 'recovery')
  capture.secret(recovery)
  capture.secret(NEW_PASSWORD)
  t.equal((await app.inject({ url: `/recovery/${recovery}` })).statusCode, 200, 'the recovery page')
  t.same((await app.inject({ url: `/api/v1/auth/recovery/${recovery}` })).json(), { status: 'success' })
  t.same((await app.inject({ method: 'POST', url: `/api/v1/auth/recovery/${recovery}`, payload: { password: NEW_PASSWORD } })).json(),
    { status: 'success', revoked: { apiKeys: 0, webhooks: [] } })
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: NEW_PASSWORD, token: true } })
  t.equal(res.json().status, 'success', 'the new password signs in')
  const signin = { token: res.json().token as string, cookie: sessionCookie(res)!, auth: { authorization: `Bearer ${res.json().token}` } }
  const signed = decodeURIComponent(signin.cookie.slice('sid='.length))
  for (const s of [signin.token, signed, signed.slice(0, signed.lastIndexOf('.'))]) capture.secret(s)

  // Google: a good ID token and a refused one
  const credential = google.idToken({ sub: `1${random(8)}`, email: uniqueEmail('google') })
  capture.secret(credential)
  const idp = await app.inject({ method: 'POST', url: '/api/v1/auth/idp', payload: { clientId: TEST_CLIENT_ID, credential, select_by: 'btn', token: true } })
  t.equal(idp.json().status, 'success', idp.body)
  capture.secret(idp.json().token)
  const forged = google.idToken({ sub: `1${random(8)}`, email: uniqueEmail('forged') }, { foreignKey: true })
  capture.secret(forged)
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/auth/idp', payload: { clientId: TEST_CLIENT_ID, credential: forged, select_by: 'btn' } })).json().status, 'error')

  // Stripe: a checkout, a failing Stripe, webhooks signed right and wrong
  const checkoutBody = { successUrl: `${PUBLIC_URL}/?paid=1`, cancelUrl: `${PUBLIC_URL}/` }
  const checkout = await app.inject({ method: 'POST', url: '/api/v1/billing/checkout', headers: signin.auth, payload: checkoutBody })
  t.equal(checkout.statusCode, 200, checkout.body)
  t.ok(stripe.requests.some((r) => r.authorization === `Bearer ${STRIPE_KEY}`), 'the key went to Stripe')
  stripe.fail(500)
  const failing = await app.inject({ method: 'POST', url: '/api/v1/billing/checkout', headers: signin.auth, payload: checkoutBody })
  t.ok(failing.statusCode >= 500, 'a failing Stripe is a 5xx answer')
  stripe.fail(undefined)
  const event = stripeEvent('customer.subscription.updated', subscriptionObject({ id: `sub_${random(8)}`, customer: 'cus_nobody' }))
  t.equal((await deliver(app, event, { secret: WEBHOOK_SECRET })).statusCode, 200)
  t.equal((await deliver(app, event, { secret: `whsec_${random(24)}` })).statusCode, 400, 'a wrong signature is refused')

  // ingest: its token, right and wrong
  const ndjson = '{"type":"category","id":"c-leak","name":"Leak","synthetic":false}\n'
  const ingest = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' }, payload: ndjson })
  t.equal(ingest.statusCode, 200, ingest.body)
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { authorization: `Bearer ${INGEST_TOKEN}x`, 'content-type': 'application/x-ndjson' }, payload: ndjson })).statusCode, 401)

  // the database fails under a cookie request: the session id is a query parameter. The session
  // is one this instance has not seen (signed in on another, on the same database): a session it
  // holds in memory refreshes without a query (src/services/sessions/rows.ts)
  const elsewhere = await (await build(t, { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' }, { database: app.database }))
    .inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: NEW_PASSWORD } })
  const otherCookie = sessionCookie(elsewhere)!
  capture.secret(otherCookie.slice('sid='.length))
  capture.secret(decodeURIComponent(otherCookie.slice('sid='.length)).split('.')[0])
  await app.database.close()
  const down = await app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', headers: { cookie: otherCookie } })
  t.equal(down.statusCode, 503, down.body)
  const downSignin = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: NEW_PASSWORD } })
  t.equal(downSignin.statusCode, 503, downSignin.body)

  // the log was written, at every level, with the secrets' places redacted
  const lines = capture.lines
  t.ok(lines.length > 50, `${lines.length} lines captured`)
  const all = lines.join('\n')
  t.match(all, '/api/v1/auth/confirm/[redacted]', 'the confirmation path is logged, its secret redacted')
  t.match(all, '/api/v1/auth/recovery/[redacted]', 'the recovery path is logged, its secret redacted')
  t.match(all, '"url":"/confirm/[redacted]"', 'the confirmation page is logged, its secret redacted')
  t.match(all, '"url":"/recovery/[redacted]"', 'the recovery page is logged, its secret redacted')
  t.match(all, 'mail written to outbox', 'the outbox lines are there (without their links)')
  t.match(all, /"level":50.*stripe/, 'the failing Stripe call is logged as an error')
  t.match(all, /"level":40.*database unavailable/, 'the database failure is logged')

  const leaks = capture.leaks()
  t.same(leaks.map((l) => `${l.why}: ${l.line.slice(0, 300)}`), [], 'no line carries a secret')
})
