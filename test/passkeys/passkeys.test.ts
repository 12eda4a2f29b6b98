// Passkeys, driven without a browser: a software authenticator (./authenticator.ts) answers the
// service's options with real attestations and signatures. Registration (fresh proof, the challenge
// accepted once, origin, RP id and user verification checked), the list and removal, the usernameless
// sign-in with its counter, another user's passkey refused, and no 500 for any body.
import t from '../tap.ts'
import { build, sessionCookie, signedInUser, type SignedInUser } from '../helper.ts'
import { claims, FAST_ARGON2, info } from '../accounts/support.ts'
import { softAuthenticator, type SoftAuthenticator } from './authenticator.ts'

const PUBLIC_URL = 'https://localhost:8443'
const RP = { id: 'localhost', origin: PUBLIC_URL }
const REFUSED = { code: 403, message: 'the passkey was not accepted' }
const NOT_REGISTERED = { code: 400, message: 'the passkey could not be registered: start again' }

let app: Awaited<ReturnType<typeof build>>
t.before(async () => { app = await build(t, { ...FAST_ARGON2, PUBLIC_URL, RATE_LIMIT_SIGNUP_IP: '1000', RATE_LIMIT_SIGNIN_IP: '1000' }) })

const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/api/v1/auth/passkeys${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) })
const registrationOptions = async (user: SignedInUser) => {
  const res = await post('/register/options', undefined, user.auth)
  if (res.statusCode !== 200) throw new Error(`options: ${res.body}`)
  return res.json()
}
const signinOptions = async () => (await post('/signin/options')).json()
/** a new passkey of `user`, registered through the API */
async function withPasskey (user: SignedInUser, name?: string): Promise<SoftAuthenticator> {
  const key = softAuthenticator(RP)
  const res = await post('/register/verify', { response: key.register(await registrationOptions(user)), ...(name ? { name } : {}) }, user.auth)
  if (res.statusCode !== 201) throw new Error(`register: ${res.body}`)
  return key
}
const backDate = (sid: string, seconds: number) =>
  app.database.query(`update sessions set proved_at = now() - make_interval(secs => ${seconds}) where public_id = $1`, [sid])

t.test('registration: options with a challenge for this user, then the answer keeps the passkey once', async (t) => {
  const user = await signedInUser(app)
  const options = await registrationOptions(user)
  t.equal(options.rp.id, 'localhost', 'the RP id is PUBLIC_URL\'s host name')
  t.equal(options.authenticatorSelection.residentKey, 'required', 'a discoverable credential')
  t.equal(options.authenticatorSelection.userVerification, 'required')
  t.equal(options.attestation, 'none')
  t.equal(options.user.name, user.email)
  t.same(options.excludeCredentials, [])

  const key = softAuthenticator(RP)
  const answer = key.register(options)
  const res = await post('/register/verify', { response: answer, name: 'Laptop' }, user.auth)
  t.equal(res.statusCode, 201)
  const created = res.json()
  t.match(created, { name: 'Laptop', lastUsedAt: null, backedUp: false, deviceType: 'singleDevice' })

  const again = await post('/register/verify', { response: answer }, user.auth)
  t.equal(again.statusCode, 400, 'the challenge was taken by the first answer')
  t.has(again.json(), NOT_REGISTERED)

  const list = await app.inject({ url: '/api/v1/auth/passkeys', headers: user.auth })
  t.equal(list.statusCode, 200)
  t.same(list.json().items.map((p: { id: string }) => p.id), [created.id])
  const next = await registrationOptions(user)
  t.same(next.excludeCredentials.map((c: { id: string }) => c.id), [key.credentialId], 'the authenticator is told which passkey the account holds')
})

t.test('registration refuses another origin, another RP id, no user verification and another user\'s challenge', async (t) => {
  const user = await signedInUser(app)
  const other = await signedInUser(app)
  for (const [what, bend] of [['origin', { origin: 'https://evil.example' }], ['RP id', { rpId: 'evil.example' }], ['user verification', { uv: false }]] as const) {
    const res = await post('/register/verify', { response: softAuthenticator(RP).register(await registrationOptions(user), bend) }, user.auth)
    t.equal(res.statusCode, 400, what)
    t.has(res.json(), NOT_REGISTERED)
  }
  const stolen = softAuthenticator(RP).register(await registrationOptions(user))
  t.equal((await post('/register/verify', { response: stolen }, other.auth)).statusCode, 400, 'a challenge issued to another user')
  t.equal((await post('/register/verify', { response: stolen }, user.auth)).statusCode, 201, 'still good for its own user')
  t.same((await app.inject({ url: '/api/v1/auth/passkeys', headers: other.auth })).json(), { items: [] })
})

t.test('the same credential cannot be registered to a second account', async (t) => {
  const first = await signedInUser(app)
  const second = await signedInUser(app)
  const key = await withPasskey(first)
  const res = await post('/register/verify', { response: key.register(await registrationOptions(second)) }, second.auth)
  t.equal(res.statusCode, 409)
  t.has(res.json(), { code: 409, message: 'this passkey is registered already' })
})

t.test('registering and removing need a fresh proof; listing does not; an API key is refused', async (t) => {
  const user = await signedInUser(app)
  const key = await withPasskey(user)
  const [item] = (await app.inject({ url: '/api/v1/auth/passkeys', headers: user.auth })).json().items
  await backDate(claims(user.token).sid as string, 3600)
  const stale = { code: 403, message: 're-authentication required', reason: 'reauthentication_required' }
  t.has((await post('/register/options', undefined, user.auth)).json(), stale)
  t.has((await post('/register/verify', { response: key.register({ challenge: 'AAAA', user: { id: 'AAAA' } }) }, user.auth)).json(), stale)
  t.has((await app.inject({ method: 'DELETE', url: `/api/v1/auth/passkeys/${item.id}`, headers: user.auth })).json(), stale)
  t.equal((await app.inject({ url: '/api/v1/auth/passkeys', headers: user.auth })).statusCode, 200)
  t.equal((await post('/register/options')).statusCode, 401, 'without a token')
  t.equal((await app.inject({ url: '/api/v1/auth/passkeys', headers: { authorization: 'Bearer pir_000000000000_nothing' } })).statusCode, 401)
})

t.test('sign-in with a passkey: a new session and its cookie, a JWT when asked; the challenge once; the counter moves on', async (t) => {
  const user = await signedInUser(app)
  const key = await withPasskey(user)
  const options = await signinOptions()
  t.equal(options.userVerification, 'required')
  t.equal(options.rpId, 'localhost')
  t.notOk(options.allowCredentials?.length, 'no credential named: the authenticator offers its discoverable ones')

  const answer = key.assert(options)
  const res = await post('/signin/verify', { response: answer, token: true })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.status, 'success')
  t.ok(sessionCookie(res), 'the session cookie is set')
  t.not(claims(body.token).sid, claims(user.token).sid, 'a session of its own')
  const me = await info(app, body.token)
  t.equal(me.json().email, user.email)

  const replay = await post('/signin/verify', { response: answer, token: true })
  t.equal(replay.statusCode, 403, 'the same answer again: its challenge was taken')
  t.has(replay.json(), REFUSED)

  const plain = await post('/signin/verify', { response: key.assert(await signinOptions()) })
  t.same(plain.json(), { status: 'success' }, 'no JWT unless asked')
  t.ok(sessionCookie(plain))

  const [row] = await app.database.query<{ counter: number | string, last_used_at: Date | null }>(
    'select counter, last_used_at from passkeys where credential_id = $1', [key.credentialId])
  t.equal(Number(row.counter), 2, 'the last counter the authenticator reported')
  t.ok(row.last_used_at)
  const back = await post('/signin/verify', { response: key.assert(await signinOptions(), { counter: 1 }) })
  t.equal(back.statusCode, 403, 'a counter that went back is a cloned authenticator\'s')
  const [method] = await app.database.query<{ method: string }>('select method from sessions where public_id = $1', [claims(body.token).sid])
  t.equal(method.method, 'passkey')
})

t.test('sign-in refuses another origin, another RP id, no user verification, an unknown passkey and a forged signature', async (t) => {
  const user = await signedInUser(app)
  const key = await withPasskey(user)
  for (const [what, bend] of [['origin', { origin: 'https://evil.example' }], ['RP id', { rpId: 'evil.example' }], ['user verification', { uv: false }]] as const) {
    const res = await post('/signin/verify', { response: key.assert(await signinOptions(), bend) })
    t.equal(res.statusCode, 403, what)
    t.has(res.json(), REFUSED)
    t.notOk(sessionCookie(res), 'no cookie')
  }
  const unknown = await post('/signin/verify', { response: softAuthenticator(RP).assert(await signinOptions()) })
  t.has(unknown.json(), REFUSED, 'a passkey the service does not know')
  const forged = key.assert(await signinOptions())
  forged.response.signature = softAuthenticator(RP).assert({ challenge: 'AAAA' }).response.signature
  t.has((await post('/signin/verify', { response: forged })).json(), REFUSED, 'another key\'s signature')
  t.equal((await post('/signin/verify', { response: key.assert({ challenge: 'bm90LWlzc3VlZA' }) })).statusCode, 403, 'a challenge never issued')
  t.equal((await post('/signin/verify', { response: key.assert(await signinOptions()) })).statusCode, 200, 'the passkey itself still works')
})

t.test('an assertion checked for a signed-in user refuses another user\'s passkey', async (t) => {
  const owner = await signedInUser(app)
  const other = await signedInUser(app)
  const key = await withPasskey(owner)
  const ownerId = (await info(app, owner.token)).json().id
  const otherId = (await info(app, other.token)).json().id
  t.same(await app.services.passkeys.verifyAssertion(key.assert(await signinOptions()), otherId), { ok: false, message: 'this passkey is not one of this account' })
  t.match(await app.services.passkeys.verifyAssertion(key.assert(await signinOptions()), ownerId), { ok: true, userId: ownerId })
})

t.test('removal: the passkey is gone and signs no one in; someone else\'s is 404', async (t) => {
  const user = await signedInUser(app)
  const other = await signedInUser(app)
  const key = await withPasskey(user, 'Phone')
  await withPasskey(user, 'Laptop')
  const items = (await app.inject({ url: '/api/v1/auth/passkeys', headers: user.auth })).json().items
  t.same(items.map((p: { name: string }) => p.name), ['Phone', 'Laptop'], 'oldest first')
  const phone = items[0].id
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/auth/passkeys/${phone}`, headers: other.auth })).statusCode, 404, 'another user\'s')
  const elsewhere = await signedInUser(app, { email: user.email, password: user.password, signUp: false })
  t.equal((await info(app, elsewhere.token)).statusCode, 200)
  const res = await app.inject({ method: 'DELETE', url: `/api/v1/auth/passkeys/${phone}`, headers: user.auth })
  t.equal(res.statusCode, 204)
  t.equal((await info(app, elsewhere.token)).statusCode, 401, 'a factor removed is a credential change: the other session ended')
  t.equal((await info(app, user.token)).statusCode, 200, 'the session that removed it goes on')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/auth/passkeys/${phone}`, headers: user.auth })).statusCode, 404, 'once')
  t.equal((await app.inject({ method: 'DELETE', url: '/api/v1/auth/passkeys/not-a-uuid', headers: user.auth })).statusCode, 404, 'a malformed id names nothing: 404')
  t.has((await post('/signin/verify', { response: key.assert(await signinOptions()) })).json(), REFUSED)
  t.same((await app.inject({ url: '/api/v1/auth/passkeys', headers: user.auth })).json().items.map((p: { name: string }) => p.name), ['Laptop'])
})

t.test('no body a client can send answers 500', async (t) => {
  const user = await signedInUser(app)
  const key = await withPasskey(user)
  const good = key.assert(await signinOptions())
  const garbage = Buffer.from('{"type":"webauthn.get","challenge":').toString('base64url')
  const bodies: unknown[] = [
    {}, { response: 'x' }, { response: null }, { response: {} }, { response: [] },
    { response: { ...good, id: 'not base64!' } },
    { response: { ...good, rawId: 'AAAA' } },
    { response: { ...good, type: 'password' } },
    { response: { ...good, response: { ...good.response, clientDataJSON: garbage } } },
    { response: { ...good, response: { ...good.response, clientDataJSON: Buffer.from('[]').toString('base64url') } } },
    { response: { ...good, response: { ...good.response, clientDataJSON: Buffer.from('null').toString('base64url') } } },
    { response: { ...good, response: { ...good.response, authenticatorData: 'AAAA' } } },
    { response: { ...good, response: { ...good.response, signature: 'AAAA' } } },
    { response: { ...good, response: { ...good.response, userHandle: 'AAAA' } } },
    { response: { ...good, response: { ...good.response, signature: '=' } } },
    { response: { ...good, clientExtensionResults: 'x' } },
    { response: good, token: 'yes' }
  ]
  for (const body of bodies) {
    const res = await post('/signin/verify', body)
    t.ok([400, 403].includes(res.statusCode), `${JSON.stringify(body).slice(0, 90)}: ${res.statusCode}`)
    t.type(res.json().message, 'string')
  }
  const options = await registrationOptions(user)
  const fresh = softAuthenticator(RP).register(options)
  const registrations: unknown[] = [
    {}, { response: 'x' }, { response: { ...fresh, id: '***' } },
    { response: { ...fresh, response: { ...fresh.response, attestationObject: 'AAAA' } } },
    { response: { ...fresh, response: { ...fresh.response, attestationObject: Buffer.from([0xa1, 0x63]).toString('base64url') } } },
    { response: { ...fresh, response: { ...fresh.response, clientDataJSON: garbage } } },
    { response: { ...fresh, response: { ...fresh.response, transports: 'usb' } } },
    { response: fresh, name: '' }
  ]
  for (const body of registrations) {
    const res = await post('/register/verify', body, user.auth)
    t.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 90)}`)
    t.type(res.json().message, 'string')
  }
  const notJson = await app.inject({ method: 'POST', url: '/api/v1/auth/passkeys/signin/verify', headers: { 'content-type': 'application/json' }, payload: '{nope' })
  t.equal(notJson.statusCode, 400)
})
