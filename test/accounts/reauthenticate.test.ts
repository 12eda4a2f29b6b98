// Fresh authentication: a session proves its owner at sign-in (password or Google) and again with
// POST /auth/reauthenticate; the sensitive calls (config.freshProof: DELETE /auth/sessions[/{id}],
// DELETE /auth/idp) answer 403 once that proof is older than STEP_UP_MAX_AGE_S. A wrong password
// counts toward the sign-in backoff; refreshing or rolling a session renews nothing; an API key's
// request is not asked for a proof.
import t from '../tap.ts'
import type { FastifyRequest } from 'fastify'
import { build, signedInUser, uniqueEmail } from '../helper.ts'
import { startGoogleCerts, TEST_CLIENT_ID, type GoogleCertsPeer } from '../peers/google-certs.ts'
import { claims, FAST_ARGON2, info, refresh } from './support.ts'
import { freshProofCheck } from '../../src/plugins/fresh-proof.ts'

const STALE = { code: 403, message: 're-authentication required', reason: 'reauthentication_required' }
const PUBLIC_URL = 'https://pir.example.test'

let app: Awaited<ReturnType<typeof build>>
let google: GoogleCertsPeer

t.before(async () => {
  google = await startGoogleCerts()
  t.teardown(() => google.close())
  app = await build(t, { ...FAST_ARGON2, PUBLIC_URL, GOOGLE_CLIENT_IDS: TEST_CLIENT_ID, GOOGLE_CERTS_URL: google.url })
})

const reauthenticate = (headers: Record<string, string>, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/reauthenticate', headers, payload })
const endOthers = (auth: Record<string, string>) => app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions', headers: auth })
const provedAt = async (sid: string) =>
  (await app.database.query<{ proved_at: Date | string }>('select proved_at from sessions where public_id = $1', [sid]))[0].proved_at
/** the session's last proof, `seconds` ago */
const backDate = (sid: string, seconds: number) =>
  app.database.query(`update sessions set proved_at = now() - make_interval(secs => ${seconds}) where public_id = $1`, [sid])
/** a nonce issued to the signed-in `auth` for its next Google proof */
const nonceFor = async (auth: Record<string, string>) => {
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/google/nonce', headers: auth })
  if (res.statusCode !== 200) throw new Error(`nonce: ${res.statusCode} ${res.body}`)
  return res.json().nonce as string
}
const failures = async (email: string) =>
  Number((await app.database.query<{ n: number | null }>('select max(failures) as n from signin_failures where email = $1', [email]))[0].n ?? 0)

t.test('a sign-in proves its owner: the session is fresh at once', async (t) => {
  const user = await signedInUser(app)
  const sid = claims(user.token).sid as string
  const [row] = await app.database.query<{ fresh: boolean }>(
    'select proved_at = created_at as fresh from sessions where public_id = $1', [sid])
  t.equal(row.fresh, true, 'proved when it began')
  const res = await endOthers(user.auth)
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'success' })
})

t.test('past STEP_UP_MAX_AGE_S the sensitive calls answer 403; the others do not ask', async (t) => {
  const user = await signedInUser(app)
  const sid = claims(user.token).sid as string
  await backDate(sid, 590)
  t.equal((await endOthers(user.auth)).statusCode, 200, 'ten seconds inside the limit')
  await backDate(sid, 601)
  for (const [method, url] of [['DELETE', '/api/v1/auth/sessions'], ['DELETE', `/api/v1/auth/sessions/${sid}`], ['DELETE', '/api/v1/auth/idp']] as const) {
    const res = await app.inject({ method, url, headers: user.auth })
    t.equal(res.statusCode, 403, `${method} ${url}`)
    t.has(res.json(), STALE)
  }
  t.equal((await info(app, user.token)).statusCode, 200, 'GET /auth/info needs no fresh proof')
  t.equal((await app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions' })).statusCode, 401, 'without a token: 401 first')
})

t.test('POST /auth/reauthenticate with the password renews the proof; a wrong one is refused and counted', async (t) => {
  const user = await signedInUser(app)
  const sid = claims(user.token).sid as string
  await backDate(sid, 3600)
  const before = await provedAt(sid)

  const wrong = await reauthenticate(user.auth, { password: 'not the password' })
  t.equal(wrong.statusCode, 403)
  t.has(wrong.json(), { code: 403, message: 'the password is wrong' })
  t.equal(await failures(user.email), 1, 'counted toward the sign-in backoff')
  t.same(await provedAt(sid), before, 'nothing renewed')
  t.has((await endOthers(user.auth)).json(), STALE)

  const none = await reauthenticate(user.auth, {})
  t.equal(none.statusCode, 400)
  t.has(none.json(), { code: 400, message: 'send the password, or clientId and credential for an account without one' })
  t.equal((await reauthenticate({}, { password: user.password })).statusCode, 401, 'a token or the cookie is required')

  const res = await reauthenticate(user.auth, { password: user.password })
  t.equal(res.statusCode, 200)
  t.same(Object.keys(res.json()).sort(), ['status', 'token'])
  t.equal(res.json().status, 'success')
  const token = res.json().token as string
  t.equal(claims(token).sid, sid, 'a JWT of the same session')
  t.equal(claims(token).sub, claims(user.token).sub)
  t.equal(await failures(user.email), 0, 'a success clears the backoff, as a sign-in does')
  t.ok(new Date(await provedAt(sid)).getTime() > new Date(before).getTime(), 'proved_at moved')
  t.equal((await endOthers({ authorization: `Bearer ${token}` })).statusCode, 200, 'the new token makes sensitive calls')
  t.equal((await endOthers(user.auth)).statusCode, 200, 'so does the old one: the proof is the session\'s')
})

t.test('the backoff locks reauthentication as it locks sign-in', async (t) => {
  const user = await signedInUser(app)
  let last
  for (let i = 0; i < 6; i++) last = await reauthenticate(user.auth, { password: `wrong ${i}` })
  t.equal(last!.statusCode, 429)
  t.ok(Number(last!.headers['retry-after']) > 0, 'Retry-After')
  t.has(last!.json(), { code: 429, message: 'too many requests' })
  const locked = await reauthenticate(user.auth, { password: user.password })
  t.equal(locked.statusCode, 429, 'even the right password waits for the lock')
})

t.test('with the session cookie: from our own origin only', async (t) => {
  const user = await signedInUser(app)
  const sid = claims(user.token).sid as string
  await backDate(sid, 3600)
  const foreign = await reauthenticate({ cookie: user.cookie, origin: 'https://evil.example.test' }, { password: user.password })
  t.equal(foreign.statusCode, 403)
  t.has(foreign.json(), { code: 403, message: 'access denied' })
  const res = await reauthenticate({ cookie: user.cookie, origin: PUBLIC_URL }, { password: user.password })
  t.equal(res.statusCode, 200)
  t.equal(claims(res.json().token).sid, sid)
  t.equal((await endOthers(user.auth)).statusCode, 200, 'fresh again')
  t.equal((await reauthenticate({ cookie: 'sid=forged.value' }, { password: user.password })).statusCode, 401, 'an unknown cookie')
})

t.test('a Google account proves itself with a fresh credential of its own Google account', async (t) => {
  const email = uniqueEmail('g-reauth')
  const sub = `3${String(process.pid).padStart(8, '0')}0000000001`
  const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/idp', payload: { clientId: TEST_CLIENT_ID, select_by: 'btn', token: true, credential: google.idToken({ sub, email }) } })
  const token = signin.json().token as string
  const auth = { authorization: `Bearer ${token}` }
  const sid = claims(token).sid as string
  t.equal((await endOthers(auth)).statusCode, 200, 'a Google sign-in is a proof')
  await backDate(sid, 3600)
  t.has((await endOthers(auth)).json(), STALE)

  const withPassword = await reauthenticate(auth, { password: 'anything at all' })
  t.equal(withPassword.statusCode, 403)
  t.has(withPassword.json(), { code: 403, message: 'this account has no password: send a Google credential (clientId, credential) instead' })
  const otherGoogle = await reauthenticate(auth, { credential: google.idToken({ sub: `${sub}9`, email, nonce: await nonceFor(auth) }) })
  t.has(otherGoogle.json(), { code: 403, message: 'the Google credential is not one of the Google account linked to this account' })
  const forged = await reauthenticate(auth, { credential: google.idToken({ sub, email, nonce: await nonceFor(auth) }, { foreignKey: true }) })
  t.equal(forged.statusCode, 403, 'a credential Google did not sign')
  t.has((await endOthers(auth)).json(), STALE, 'nothing renewed')

  const res = await reauthenticate(auth, { credential: google.idToken({ sub, email, nonce: await nonceFor(auth) }) })
  t.equal(res.statusCode, 200, 'clientId may be left out while one Google client is configured')
  t.equal(claims(res.json().token).sid, sid)
  t.equal((await endOthers(auth)).statusCode, 200)
  await backDate(sid, 3600)
  const withClient = await reauthenticate(auth, { clientId: TEST_CLIENT_ID, credential: google.idToken({ sub, email, nonce: await nonceFor(auth) }) })
  t.equal(withClient.statusCode, 200, 'or sent')
})

t.test('a Google proof must be at most 5 minutes old and carry a nonce issued to this user, once; sign-in needs none', async (t) => {
  const email = uniqueEmail('g-nonce')
  const sub = `4${String(process.pid).padStart(8, '0')}0000000001`
  const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/idp', payload: { clientId: TEST_CLIENT_ID, select_by: 'btn', token: true, credential: google.idToken({ sub, email }) } })
  t.equal(signin.json().status, 'success', 'a sign-in credential without a nonce still signs in')
  const auth = { authorization: `Bearer ${signin.json().token as string}` }
  const other = await signedInUser(app)
  const NO_NONCE = { code: 403, message: 'the Google credential does not carry a nonce this service issued (POST /auth/google/nonce), or its nonce was used' }
  const prove = (claims: Record<string, unknown>) => reauthenticate(auth, { credential: google.idToken({ sub, email, ...claims }) })

  t.equal((await app.inject({ method: 'POST', url: '/api/v1/auth/google/nonce' })).statusCode, 401, 'a nonce is issued to a signed-in person only')
  const issued = await app.inject({ method: 'POST', url: '/api/v1/auth/google/nonce', headers: auth })
  t.equal(issued.statusCode, 200)
  t.match(issued.json(), { nonce: /^[\w-]{32}$/, expiresAt: String })
  t.ok(Date.parse(issued.json().expiresAt) > Date.now(), 'it lives a while')

  t.has((await prove({})).json(), NO_NONCE, 'no nonce (an ordinary sign-in credential, up to an hour old)')
  t.has((await prove({ nonce: 'not-one-we-issued-0123456789abcdef' })).json(), NO_NONCE, 'a nonce the service never issued')
  t.has((await prove({ nonce: await nonceFor(other.auth) })).json(), NO_NONCE, "another user's nonce")
  const iat = Math.floor(Date.now() / 1000) - 301
  const old = await prove({ nonce: issued.json().nonce, iat, exp: iat + 3600 })
  t.has(old.json(), { code: 403, message: 'the Google credential is too old: continue with Google again' }, 'issued 5 minutes and a second ago')
  const expired = await app.database.query('select 1 from auth_challenges where challenge = $1', [issued.json().nonce])
  t.equal(expired.length, 1, 'a refused credential leaves its nonce unused')
  await app.database.query("update auth_challenges set expires_at = now() - interval '1 second' where challenge = $1", [issued.json().nonce])
  t.has((await prove({ nonce: issued.json().nonce })).json(), NO_NONCE, 'an expired nonce')

  const nonce = await nonceFor(auth)
  const fresh = await prove({ nonce })
  t.equal(fresh.statusCode, 200, 'a fresh credential with an issued nonce proves')
  t.has((await prove({ nonce })).json(), NO_NONCE, 'its nonce is accepted once')
  const recent = Math.floor(Date.now() / 1000) - 240
  t.equal((await prove({ nonce: await nonceFor(auth), iat: recent, exp: recent + 3600 })).statusCode, 200, 'four minutes old is fine')
})

t.test('an API key\'s request is asked for no proof; a stale session is, through the same check', async (t) => {
  const user = await signedInUser(app)
  const sid = claims(user.token).sid as string
  const id = claims(user.token).sub as string
  await backDate(sid, 3600)
  const check = freshProofCheck(app.sessions, { maxAgeS: app.config.stepUpMaxAgeS })
  const asRequest = (user: Record<string, unknown>) => ({ user }) as unknown as FastifyRequest
  await t.resolves(check(asRequest({ id, sid: 'not-a-session', apiKey: { id: 'k', scopes: ['webhooks'] } })), 'a key passes without a read')
  await t.rejects(check(asRequest({ id, sid })), { statusCode: 403, message: 're-authentication required' })
  await backDate(sid, 10)
  await t.resolves(check(asRequest({ id, sid })))
})

t.test('refreshing and rolling a session on never renews its proof', async (t) => {
  let clock = Date.now()
  const timed = await build(t, { ...FAST_ARGON2 }, { now: () => clock })
  const user = await signedInUser(timed)
  const sid = claims(user.token).sid as string
  const row = async () => (await timed.database.query<{ proved_at: Date | string, last_used_at: Date | string }>(
    'select proved_at, last_used_at from sessions where public_id = $1', [sid]))[0]
  const proved = (await row()).proved_at
  clock += (timed.config.stepUpMaxAgeS + 60) * 1000
  const refreshed = await refresh(timed, user.cookie)
  t.equal(refreshed.statusCode, 200)
  t.ok(refreshed.headers['set-cookie'], 'the session was rolled on (its cookie sent again)')
  const after = await row()
  t.equal(new Date(after.last_used_at).getTime(), clock, 'its last use moved')
  t.same(after.proved_at, proved, 'its proof did not')
  const res = await timed.inject({ method: 'DELETE', url: '/api/v1/auth/sessions', headers: { authorization: `Bearer ${refreshed.json().token}` } })
  t.has(res.json(), STALE, 'the refreshed token is as stale as the session')
  const renewed = await timed.inject({ method: 'POST', url: '/api/v1/auth/reauthenticate', headers: user.auth, payload: { password: user.password } })
  t.equal(renewed.statusCode, 200)
  t.equal(new Date((await row()).proved_at).getTime(), clock, 'renewed at the app\'s clock')
  t.equal((await timed.inject({ method: 'DELETE', url: '/api/v1/auth/sessions', headers: user.auth })).statusCode, 200)
})
