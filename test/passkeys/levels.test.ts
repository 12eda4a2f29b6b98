// Passkeys and the session's level (docs/decisions/accounts.md, Passkeys): a passkey sign-in starts
// at level 2; the first passkey of an account moves the session that registered it to level 2 and
// ends the others; with a passkey a password sign-in is at level 1 and a passkey assertion
// completes POST /auth/mfa/verify; POST /auth/reauthenticate takes one as a fresh proof; another
// user's passkey proves nothing; removing the last passkey leaves the session without a level. The
// audit trail records passkeys added and removed, and passkey sign-ins as sign-ins, refused or not.
import t from '../tap.ts'
import { build, sessionCookie, signedInUser, type SignedInUser } from '../helper.ts'
import { claims, FAST_ARGON2, info } from '../accounts/support.ts'
import { softAuthenticator, type SoftAuthenticator } from './authenticator.ts'

const PUBLIC_URL = 'https://localhost:8443'
const RP = { id: 'localhost', origin: PUBLIC_URL }

let app: Awaited<ReturnType<typeof build>>
t.before(async () => { app = await build(t, { ...FAST_ARGON2, PUBLIC_URL, RATE_LIMIT_SIGNUP_IP: '1000', RATE_LIMIT_SIGNIN_IP: '1000' }) })

const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/api/v1${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) })
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const assertionOptions = async () => (await post('/auth/passkeys/signin/options')).json()
const levelOf = async (sid: string) =>
  (await app.database.query<{ aal: number | null }>('select aal from sessions where public_id = $1', [sid]))[0]?.aal ?? null
async function withPasskey (user: SignedInUser): Promise<SoftAuthenticator> {
  const key = softAuthenticator(RP)
  const options = (await post('/auth/passkeys/register/options', undefined, user.auth)).json()
  const res = await post('/auth/passkeys/register/verify', { response: key.register(options) }, user.auth)
  if (res.statusCode !== 201) throw new Error(`register: ${res.body}`)
  return key
}
const passwordSignin = async (user: SignedInUser) => (await post('/auth/signin', { email: user.email, password: user.password, token: true })).json()

t.test('the first passkey: the session that registered it moves to level 2, every other session ends', async (t) => {
  const user = await signedInUser(app)
  const other = await signedInUser(app, { email: user.email, password: user.password, signUp: false })
  const sid = claims(user.token).sid as string
  t.equal(await levelOf(sid), null, 'no second factor yet: no level')
  await withPasskey(user)
  t.equal(await levelOf(sid), 2)
  t.equal((await info(app, user.token)).statusCode, 200, 'its token goes on')
  t.equal((await info(app, other.token)).statusCode, 401, 'the other session proved the password alone: it ended')
  t.match((await info(app, user.token)).json().mfa, { passkeys: 1 })

  const refreshed = await post('/auth/token/refresh', undefined, { cookie: user.cookie })
  t.equal(claims(refreshed.json().token).aal, 2, 'a refreshed token says level 2')
  await withPasskey(user)
  t.equal((await info(app, user.token)).statusCode, 200, 'a second passkey ends nothing')
})

t.test('a passkey sign-in starts at level 2', async (t) => {
  const user = await signedInUser(app)
  const key = await withPasskey(user)
  const res = await post('/auth/passkeys/signin/verify', { response: key.assert(await assertionOptions()), token: true })
  t.equal(res.statusCode, 200)
  const { token } = res.json()
  t.same(res.json(), { status: 'success', token }, 'no mfaRequired')
  t.equal(claims(token).aal, 2)
  t.equal(await levelOf(claims(token).sid as string), 2)
  t.equal((await app.inject({ url: '/api/v1/report', headers: bearer(token) })).statusCode, 200, 'past the level gate')
})

t.test('a password sign-in of an account with a passkey is at level 1; the passkey completes it', async (t) => {
  const user = await signedInUser(app)
  const key = await withPasskey(user)
  const stranger = await signedInUser(app)
  const strangerKey = await withPasskey(stranger)

  const signin = await passwordSignin(user)
  t.same(signin, { status: 'success', mfaRequired: true, token: signin.token })
  t.equal(claims(signin.token).aal, 1)
  const gate = { code: 403, message: 'second factor required', reason: 'second_factor_required' }
  t.has((await app.inject({ url: '/api/v1/auth/passkeys', headers: bearer(signin.token) })).json(), gate, 'the passkey list waits for the second factor')
  t.has((await post('/auth/passkeys/register/options', undefined, bearer(signin.token))).json(), gate, 'so does registering one')

  const verify = (payload: unknown, token = signin.token) => post('/auth/mfa/verify', payload, bearer(token))
  const foreign = await verify({ passkey: strangerKey.assert(await assertionOptions()) })
  t.same(foreign.json(), { status: 'error', fieldError: { field: 'passkey', message: 'this passkey is not one of this account' } }, 'another user\'s passkey')
  const badOrigin = await verify({ passkey: key.assert(await assertionOptions(), { origin: 'https://evil.example' }) })
  t.same(badOrigin.json(), { status: 'error', fieldError: { field: 'passkey', message: 'the passkey was not accepted' } })
  t.equal(await levelOf(claims(signin.token).sid as string), 1, 'still level 1')

  const answer = key.assert(await assertionOptions())
  const done = await verify({ passkey: answer })
  t.equal(done.statusCode, 200)
  t.equal(done.json().status, 'success')
  t.equal(claims(done.json().token).aal, 2)
  t.equal(await levelOf(claims(signin.token).sid as string), 2)
  t.equal((await app.inject({ url: '/api/v1/auth/passkeys', headers: bearer(done.json().token) })).statusCode, 200)

  const again = await passwordSignin(user)
  t.same((await verify({ passkey: answer }, again.token)).json().fieldError?.field, 'passkey', 'an assertion is accepted once')
  const kinds = (await app.database.query<{ kind: string }>(
    "select kind from audit_events where user_id = (select id from users where email = $1) and kind like 'mfa.verify.%' order by id", [user.email])).map((r) => r.kind)
  t.same(kinds, ['mfa.verify.failure', 'mfa.verify.failure', 'mfa.verify.success', 'mfa.verify.failure'])
})

t.test('POST /auth/reauthenticate takes a passkey of the account as a fresh proof', async (t) => {
  const user = await signedInUser(app)
  const key = await withPasskey(user)
  const stranger = await signedInUser(app)
  const strangerKey = await withPasskey(stranger)
  const sid = claims(user.token).sid as string
  await app.database.query("update sessions set proved_at = now() - interval '1 hour' where public_id = $1", [sid])
  const stale = { code: 403, message: 're-authentication required', reason: 'reauthentication_required' }
  t.has((await post('/auth/passkeys/register/options', undefined, user.auth)).json(), stale)

  const foreign = await post('/auth/reauthenticate', { passkey: strangerKey.assert(await assertionOptions()) }, user.auth)
  t.equal(foreign.statusCode, 403)
  t.has(foreign.json(), { code: 403, message: 'this passkey is not one of this account' })
  const uv = await post('/auth/reauthenticate', { passkey: key.assert(await assertionOptions(), { uv: false }) }, user.auth)
  t.has(uv.json(), { code: 403, message: 'the passkey was not accepted' }, 'user verification is required')
  t.has((await post('/auth/passkeys/register/options', undefined, user.auth)).json(), stale, 'nothing renewed')

  const res = await post('/auth/reauthenticate', { passkey: key.assert(await assertionOptions()) }, user.auth)
  t.equal(res.statusCode, 200)
  t.equal(res.json().status, 'success')
  t.equal((await post('/auth/passkeys/register/options', undefined, user.auth)).statusCode, 200, 'fresh again')
  for (const bad of [{ passkey: 'x' }, { passkey: { ...key.assert(await assertionOptions()), rawId: '***' } }, { passkey: {} }]) {
    t.equal((await post('/auth/reauthenticate', bad, user.auth)).statusCode, 400, JSON.stringify(bad).slice(0, 60))
  }
})

t.test('removing the last passkey: the session has no level any more; a passkey sign-in with it is refused', async (t) => {
  const user = await signedInUser(app)
  const key = await withPasskey(user)
  const sid = claims(user.token).sid as string
  t.equal(await levelOf(sid), 2)
  const [item] = (await app.inject({ url: '/api/v1/auth/passkeys', headers: user.auth })).json().items
  const bare = await app.inject({ method: 'DELETE', url: `/api/v1/auth/passkeys/${item.id}`, headers: user.auth })
  t.equal(bare.statusCode, 403, 'the only factor is not removed with the (fresh) password sign-in alone')
  t.same(bare.json(), {
    code: 403,
    message: 'removing the last second factor needs a proof by it: a code of the authenticator app or a recovery code, or an assertion of the passkey',
    reason: 'factor_proof_required'
  })
  t.equal(await levelOf(sid), 2, 'nothing changed')
  const stranger = await signedInUser(app)
  const strangerKey = await withPasskey(stranger)
  const foreign = await app.inject({ method: 'DELETE', url: `/api/v1/auth/passkeys/${item.id}`, headers: user.auth, payload: { passkey: strangerKey.assert(await assertionOptions()) } })
  t.same(foreign.json(), { code: 403, message: 'this passkey is not one of this account', reason: 'proof_refused' }, 'another account\'s passkey proves nothing')
  const proved = await app.inject({ method: 'DELETE', url: `/api/v1/auth/passkeys/${item.id}`, headers: user.auth, payload: { passkey: key.assert(await assertionOptions()) } })
  t.equal(proved.statusCode, 204, 'an assertion of the passkey itself removes it')
  t.equal(await levelOf(sid), null)
  const again = await passwordSignin(user)
  t.same(again, { status: 'success', token: again.token }, 'a password sign-in needs no second factor again')
  const refused = await post('/auth/passkeys/signin/verify', { response: key.assert(await assertionOptions()) })
  t.equal(refused.statusCode, 403)
  t.notOk(sessionCookie(refused))
})

t.test('a garbage passkey at the second factor is a form answer, never a 500', async (t) => {
  const user = await signedInUser(app)
  const key = await withPasskey(user)
  const signin = await passwordSignin(user)
  const good = key.assert(await assertionOptions())
  for (const passkey of ['x', null, {}, { ...good, id: '!' }, { ...good, response: { ...good.response, clientDataJSON: 'AAAA' } }]) {
    const res = await post('/auth/mfa/verify', { passkey }, bearer(signin.token))
    t.equal(res.statusCode, 200, JSON.stringify(passkey).slice(0, 60))
    t.equal(res.json().status, 'error')
  }
})

t.test('the audit trail: passkey.add and passkey.remove, signin.success for a passkey sign-in, signin.failure for a refused one', async (t) => {
  const user = await signedInUser(app)
  const kindsOf = async () => (await app.database.query<{ kind: string }>(
    "select kind from audit_events where user_id = (select id from users where email = $1) and kind like any (array['passkey.%', 'signin.%']) order by id",
    [user.email])).map((r) => r.kind)
  const anonymousFailures = async () => (await app.database.query<{ n: number }>(
    "select count(*)::int as n from audit_events where kind = 'signin.failure' and user_id is null"))[0].n
  const before = await kindsOf()
  const key = await withPasskey(user)
  t.same((await kindsOf()).slice(before.length), ['passkey.add'])

  const signin = await post('/auth/passkeys/signin/verify', { response: key.assert(await assertionOptions()), token: true })
  t.equal(signin.statusCode, 200)
  t.same((await kindsOf()).slice(before.length), ['passkey.add', 'signin.success'], 'a passkey sign-in is a sign-in')

  const failures = await anonymousFailures()
  const forged = await post('/auth/passkeys/signin/verify', { response: key.assert(await assertionOptions(), { origin: 'https://evil.example' }) })
  t.equal(forged.statusCode, 403)
  t.equal(await anonymousFailures(), failures + 1, 'a refused passkey sign-in: a signin.failure row, of no account (the assertion proved none)')

  const [item] = (await app.inject({ url: '/api/v1/auth/passkeys', headers: user.auth })).json().items
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/auth/passkeys/${item.id}`, headers: user.auth, payload: { passkey: key.assert(await assertionOptions()) } })).statusCode, 204)
  t.same((await kindsOf()).slice(before.length), ['passkey.add', 'signin.success', 'passkey.remove'])
  const removed = await post('/auth/passkeys/signin/verify', { response: key.assert(await assertionOptions()) })
  t.equal(removed.statusCode, 403)
  t.equal(await anonymousFailures(), failures + 2, 'the removed passkey: another signin.failure')
  t.same((await kindsOf()).slice(before.length), ['passkey.add', 'signin.success', 'passkey.remove'], 'no success for it')
})
