// The session's authentication level (docs/decisions/accounts.md, Second factors): an account
// without a second factor signs in as it always did (no level, no `aal` claim); one with an
// authenticator app signs in at level 1, where only POST /auth/mfa/verify, POST /auth/signout and
// GET /auth/info answer, until a code (or a recovery code) moves the session to level 2. A wrong
// code counts toward the account's own budget (10 per 15 minutes, which no password sign-in
// clears); a code is accepted once; POST /auth/reauthenticate takes a code as a proof.
import t from '../tap.ts'
import { logCapture, signedInUser } from '../helper.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'
import { startGoogleCerts, TEST_CLIENT_ID, type GoogleCertsPeer } from '../peers/google-certs.ts'
import { bearer, buildMfaApp, claimsOf, enrolTotp, inject, passwordSignin, SECOND_FACTOR_REQUIRED, type MfaApp } from './support.ts'

const PUBLIC_URL = 'https://pir.example.test'
const WRONG_CODE = { status: 'error', fieldError: { field: 'code', message: 'The code is wrong or was used already' } }

let m: MfaApp
let google: GoogleCertsPeer

t.before(async () => {
  google = await startGoogleCerts()
  t.teardown(() => google.close())
  // Stripe is configured (never reached: the gate refuses first) so that billing answers at all
  m = await buildMfaApp(t, {
    PUBLIC_URL, GOOGLE_CLIENT_IDS: TEST_CLIENT_ID, GOOGLE_CERTS_URL: google.url, RATE_LIMIT_SIGNUP_IP: '1000',
    // the code budget's test signs in eleven times in a row: the sign-in's own limit is not what it tests
    RATE_LIMIT_SIGNIN_EMAIL: '100', RATE_LIMIT_SIGNIN_IP: '1000',
    STRIPE_SECRET_KEY: 'sk_test_unused', STRIPE_WEBHOOK_SECRET: 'whsec_unused', STRIPE_PRICE_ID: 'price_unused'
  })
})

const levelOf = async (sid: string) =>
  (await m.app.database.query<{ aal: number | null }>('select aal from sessions where public_id = $1', [sid]))[0]?.aal
const failures = async (email: string) =>
  Number((await m.app.database.query<{ n: number | null }>('select max(failures) as n from signin_failures where email = $1', [email]))[0].n ?? 0)
/** the account's count of wrong codes (its own row: src/services/accounts/code-budget.ts) */
const codeFailures = async (email: string) => Number((await m.app.database.query<{ n: number | null }>(
  "select max(failures) as n from signin_failures where email = 'second-factor:' || (select id from users where email = $1)", [email]))[0].n ?? 0)
const auditKinds = async (email: string) => (await m.app.database.query<{ kind: string }>(
  'select kind from audit_events where user_id = (select id from users where email = $1) order by id', [email])).map((r) => r.kind)

/** a user with a confirmed authenticator app, signed in again with the password: a level-1 session */
async function levelOneUser () {
  const user = await signedInUser(m.app)
  const enrolled = await enrolTotp(m, user)
  const signin = await passwordSignin(m.app, user)
  return { user, enrolled, signin, token: signin.body.token!, sid: claimsOf(signin.body.token!).sid as string }
}

t.test('an account without a second factor: no level, no claim, the answers of before', async (t) => {
  const user = await signedInUser(m.app)
  t.same(user.res.json(), { status: 'success', token: user.token }, 'no mfaRequired')
  t.same(Object.keys(claimsOf(user.token)).sort(), ['exp', 'iat', 'sid', 'sub'])
  t.equal(await levelOf(claimsOf(user.token).sid as string), null)
  const refreshed = await inject(m.app, 'POST', '/auth/token/refresh', { cookie: user.cookie })
  t.equal(refreshed.statusCode, 200)
  t.same(Object.keys(claimsOf(refreshed.json().token)).sort(), ['exp', 'iat', 'sid', 'sub'], 'a refreshed token neither')
  const info = await inject(m.app, 'GET', '/auth/info', user.auth)
  t.same(info.json().mfa, { totp: false, passkeys: 0, recoveryCodesLeft: 0 })
  t.equal((await inject(m.app, 'GET', '/report', user.auth)).statusCode, 200)
})

t.test('with an authenticator app a password sign-in is at level 1: mfaRequired, aal 1 in the row and the token', async (t) => {
  const { signin, token, sid } = await levelOneUser()
  t.same(signin.body, { status: 'success', mfaRequired: true, token })
  t.ok(signin.cookie, 'the cookie is set')
  t.equal(claimsOf(token).aal, 1)
  t.equal(await levelOf(sid), 1)
  const without = await passwordSignin(m.app, { email: (await inject(m.app, 'GET', '/auth/info', bearer(token))).json().email, password: 'correct horse battery staple' })
  t.equal(without.body.mfaRequired, true, 'every password sign-in of the account')
})

t.test('level 1 reaches only verify, sign-out and info; everything else is 403 second factor required', async (t) => {
  const { token, signin, sid } = await levelOneUser()
  const auth = bearer(token)
  const origin = { origin: PUBLIC_URL }
  const refused: Array<[string, 'GET' | 'POST' | 'DELETE', string, Record<string, string>, object?]> = [
    ['reports', 'GET', '/report', auth],
    ['a report', 'POST', '/report', auth, { profiles: [{ source: 'ig', username: 'x' }] }],
    ['SSE by Bearer', 'GET', `/sse/${sid}`, auth],
    ['SSE by cookie', 'GET', `/sse/${sid}`, { cookie: signin.cookie }],
    ['refresh by cookie', 'POST', '/auth/token/refresh', { cookie: signin.cookie, ...origin }],
    ['billing checkout', 'POST', '/billing/checkout', auth, {}],
    ['promo codes', 'POST', '/billing/promocode', auth, { promocode: 'X' }],
    ['API keys', 'GET', '/auth/api-keys', auth],
    ['a new API key', 'POST', '/auth/api-keys', auth, { name: 'k', scopes: ['reports:read'] }],
    ['sessions', 'GET', '/auth/sessions', auth],
    ['webhooks', 'GET', '/webhooks', auth],
    ['profiles', 'GET', '/profiles?q=alex', auth],
    ['images', 'GET', '/images?url=https%3A%2F%2Fexample.com%2Fa.png', auth],
    ['re-authentication', 'POST', '/auth/reauthenticate', auth, { password: 'correct horse battery staple' }],
    ['re-authentication by cookie', 'POST', '/auth/reauthenticate', { cookie: signin.cookie, ...origin }, { password: 'correct horse battery staple' }],
    ['TOTP set-up', 'POST', '/auth/mfa/totp', auth],
    ['TOTP removal', 'DELETE', '/auth/mfa/totp', auth]
  ]
  for (const [what, method, url, headers, payload] of refused) {
    const res = await inject(m.app, method, url, headers, payload)
    t.equal(res.statusCode, 403, what)
    t.has(res.json(), SECOND_FACTOR_REQUIRED, what)
  }
  const info = await inject(m.app, 'GET', '/auth/info', auth)
  t.equal(info.statusCode, 200, 'GET /auth/info answers')
  t.same(info.json().mfa, { totp: true, passkeys: 0, recoveryCodesLeft: 10 })
  const out = await inject(m.app, 'POST', '/auth/signout', auth)
  t.equal(out.statusCode, 200, 'sign-out answers')
  t.equal((await inject(m.app, 'GET', '/auth/info', auth)).statusCode, 401, 'and the session has ended')
})

t.test('POST /auth/mfa/verify: a wrong code is a form error counted by the account\'s budget; the right one moves the session to level 2', async (t) => {
  const { user, enrolled, token, sid, signin } = await levelOneUser()
  const auth = bearer(token)
  t.equal(await failures(user.email), 0, 'the sign-in cleared the failures')
  const wrong = await inject(m.app, 'POST', '/auth/mfa/verify', auth, { code: '000000' === codeAt(enrolled.secret, m.now()) ? '111111' : '000000' })
  t.same(wrong.json(), WRONG_CODE)
  t.equal(await codeFailures(user.email), 1, 'counted in the account\'s own row')
  t.equal(await failures(user.email), 0, 'not in the address\'s sign-in row')
  t.same((await inject(m.app, 'POST', '/auth/mfa/verify', auth, {})).json(),
    { status: 'error', fieldError: { field: 'code', message: 'Enter the code from your authenticator app, or a recovery code' } })
  t.same((await inject(m.app, 'POST', '/auth/mfa/verify', auth, { code: 7 })).json().fieldError.field, 'code', 'a schema failure names the code too')

  const code = codeAt(enrolled.secret, m.now())
  const res = await inject(m.app, 'POST', '/auth/mfa/verify', auth, { code })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.status, 'success')
  t.equal(claimsOf(body.token).aal, 2)
  t.equal(claimsOf(body.token).sid, sid, 'the same session')
  t.equal(await levelOf(sid), 2)
  t.equal(await codeFailures(user.email), 2, 'a right code gives back its own claim only: the wrong ones (000000, and 7 read as "7") stay counted')
  t.equal((await inject(m.app, 'GET', '/report', bearer(body.token))).statusCode, 200, 'the level-2 token reaches the reports')
  t.has((await inject(m.app, 'GET', '/report', auth)).json(), SECOND_FACTOR_REQUIRED, 'the level-1 token stays level 1')

  const refreshed = await inject(m.app, 'POST', '/auth/token/refresh', { cookie: signin.cookie, origin: PUBLIC_URL })
  t.equal(refreshed.statusCode, 200, 'the cookie refreshes now')
  t.equal(claimsOf(refreshed.json().token).aal, 2, 'into a level-2 token')

  // the same code on another level-1 session, within its step: refused
  const other = await passwordSignin(m.app, user)
  t.same((await inject(m.app, 'POST', '/auth/mfa/verify', bearer(other.body.token!), { code })).json(), WRONG_CODE, 'a code is accepted once')
  t.ok((await auditKinds(user.email)).includes('mfa.verify.failure'), 'refusals are audited')
  t.ok((await auditKinds(user.email)).includes('mfa.verify.success'))
})

t.test('verify by the session cookie, from our own origin only', async (t) => {
  const { enrolled, signin } = await levelOneUser()
  const code = codeAt(enrolled.secret, m.now())
  const foreign = await inject(m.app, 'POST', '/auth/mfa/verify', { cookie: signin.cookie, origin: 'https://evil.example' }, { code })
  t.equal(foreign.statusCode, 403)
  const res = await inject(m.app, 'POST', '/auth/mfa/verify', { cookie: signin.cookie, origin: PUBLIC_URL }, { code })
  t.equal(res.json().status, 'success')
  t.equal(claimsOf(res.json().token).aal, 2)
  t.equal((await inject(m.app, 'GET', `/sse/${claimsOf(res.json().token).sid as string}`, { cookie: signin.cookie })).statusCode, 404,
    'the cookie passes the gate (an unknown report is 404)')
})

t.test('a recovery code verifies once; recoveryCodesLeft counts down', async (t) => {
  const { user, enrolled, token } = await levelOneUser()
  const [first, second] = enrolled.recoveryCodes
  const ok = await inject(m.app, 'POST', '/auth/mfa/verify', bearer(token), { recoveryCode: first.toUpperCase() })
  t.equal(ok.json().status, 'success', 'case does not matter')
  t.equal(claimsOf(ok.json().token).aal, 2)
  const again = await passwordSignin(m.app, user)
  t.same((await inject(m.app, 'POST', '/auth/mfa/verify', bearer(again.body.token!), { recoveryCode: first })).json(), WRONG_CODE, 'used up')
  const typedAsCode = await inject(m.app, 'POST', '/auth/mfa/verify', bearer(again.body.token!), { code: second })
  t.equal(typedAsCode.json().status, 'success', 'a recovery code typed into the code field')
  t.equal((await inject(m.app, 'GET', '/auth/info', bearer(typedAsCode.json().token))).json().mfa.recoveryCodesLeft, 8)
  const hashes = await m.app.database.query<{ hash: string }>('select hash from mfa_recovery_codes where user_id = (select id from users where email = $1)', [user.email])
  t.equal(hashes.length, 10)
  t.notOk(hashes.some((h) => enrolled.recoveryCodes.some((c) => h.hash.includes(c) || h.hash.includes(c.replace(/-/g, '')))), 'only hashes are stored')
})

t.test('at most 10 wrong codes per 15 minutes, password sign-ins between them or not: the 11th is 429, logged as second-factor', async (t) => {
  const { user, enrolled } = await levelOneUser()
  // the app's clock stands still: the 15 minutes cannot pass on a slow machine
  m.hold()
  t.teardown(() => m.release())
  const right = codeAt(enrolled.secret, m.now())
  const wrongCode = right === '000000' ? '111111' : '000000'
  const statuses: number[] = []
  for (let i = 0; i < 10; i++) {
    // a fresh password sign-in before every guess: it clears the address's sign-in failures, never the codes'
    const signin = await passwordSignin(m.app, user)
    t.equal(signin.body.mfaRequired, true)
    statuses.push((await inject(m.app, 'POST', '/auth/mfa/verify', bearer(signin.body.token!), { code: wrongCode })).statusCode)
  }
  t.same(statuses, Array(10).fill(200), 'ten wrong codes are form errors')
  t.equal(await failures(user.email), 0, 'the sign-ins left the address without a failure')
  const lines = logCapture(m.app)?.lines ?? []
  const before = lines.length
  const signin = await passwordSignin(m.app, user)
  const eleventh = await inject(m.app, 'POST', '/auth/mfa/verify', bearer(signin.body.token!), { code: wrongCode })
  t.equal(eleventh.statusCode, 429, 'the 11th within 15 minutes is refused, after a sign-in too')
  t.ok(Number(eleventh.headers['retry-after']) > 60, 'Retry-After: until 15 minutes after the last wrong code')
  t.equal((await inject(m.app, 'POST', '/auth/mfa/verify', bearer(signin.body.token!), { code: right })).statusCode, 429, 'even the right code waits')
  const refusals = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'rate limit refused')
  t.match(refusals, [{ limiter: 'second-factor', keyKind: 'user', route: '/api/v1/auth/mfa/verify' }, { limiter: 'second-factor' }],
    'logged under its own limiter name')
  t.notOk(refusals.some((l) => l.limiter === 'unnamed'))
  t.same((await inject(m.app, 'POST', '/auth/reauthenticate', bearer(signin.body.token!), { code: right })).statusCode, 403,
    'a level-1 session cannot re-authenticate either (it has not proved the factor)')
})

t.test('POST /auth/reauthenticate takes a code (TOTP or recovery) for an account with an authenticator app', async (t) => {
  const user = await signedInUser(m.app)
  const enrolled = await enrolTotp(m, user)
  const sid = claimsOf(enrolled.token).sid as string
  const auth = bearer(enrolled.token)
  await m.app.database.query("update sessions set proved_at = now() - interval '1 hour' where public_id = $1", [sid])
  t.has((await inject(m.app, 'DELETE', '/auth/sessions', auth)).json(), { code: 403, message: 're-authentication required' })
  const wrong = await inject(m.app, 'POST', '/auth/reauthenticate', auth, { code: '12345x' })
  t.equal(wrong.statusCode, 403)
  t.has(wrong.json(), { code: 403, message: 'The code is wrong or was used already' })
  const res = await inject(m.app, 'POST', '/auth/reauthenticate', auth, { code: codeAt(enrolled.secret, m.now()) })
  t.equal(res.statusCode, 200)
  t.equal(claimsOf(res.json().token).aal, 2, 'the token keeps the level')
  t.equal((await inject(m.app, 'DELETE', '/auth/sessions', bearer(res.json().token))).statusCode, 200, 'fresh again')
  await m.app.database.query("update sessions set proved_at = now() - interval '1 hour' where public_id = $1", [sid])
  const recovery = await inject(m.app, 'POST', '/auth/reauthenticate', auth, { code: enrolled.recoveryCodes[3] })
  t.equal(recovery.statusCode, 200, 'a recovery code too')

  const plain = await signedInUser(m.app)
  const refused = await inject(m.app, 'POST', '/auth/reauthenticate', plain.auth, { code: '123456' })
  t.equal(refused.statusCode, 403)
  t.has(refused.json(), { code: 403, message: 'This account has no authenticator app: prove it is you another way' })
})

t.test('Google sign-in of an account with an authenticator app lands at level 1 too', async (t) => {
  const user = await signedInUser(m.app)
  const sub = `google-${Date.now()}`
  const linked = await inject(m.app, 'POST', '/auth/idp', {}, { clientId: TEST_CLIENT_ID, select_by: 'btn', credential: google.idToken({ sub, email: user.email }), token: true })
  t.equal(linked.json().status, 'success')
  t.equal(linked.json().mfaRequired, undefined, 'no factor yet: no level')
  // (linking removed the unproven password and its sessions: the Google session sets the app up)
  const token = linked.json().token as string
  await enrolTotp(m, { ...user, token, auth: bearer(token) })
  const res = await inject(m.app, 'POST', '/auth/idp', {}, { clientId: TEST_CLIENT_ID, select_by: 'btn', credential: google.idToken({ sub, email: user.email }), token: true })
  t.equal(res.json().mfaRequired, true)
  t.equal(claimsOf(res.json().token).aal, 1)
  t.has((await inject(m.app, 'GET', '/report', bearer(res.json().token))).json(), SECOND_FACTOR_REQUIRED)
})

t.test('an API key has no level: it keeps working for an account with a second factor', async (t) => {
  const user = await signedInUser(m.app)
  const enrolled = await enrolTotp(m, user)
  const created = await inject(m.app, 'POST', '/auth/api-keys', bearer(enrolled.token), { name: 'nightly', scopes: ['reports:read'] })
  t.equal(created.statusCode, 201, 'a level-2 session creates keys')
  const key = created.json().key as string
  await passwordSignin(m.app, user)
  t.equal((await inject(m.app, 'GET', '/report', bearer(key))).statusCode, 200)
})
