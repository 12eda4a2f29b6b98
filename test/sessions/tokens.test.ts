// Bearer JWTs: HS256 pinned, expiry, rotation through JWT_PREVIOUS_SECRETS, garbage;
// session cookies across a SESSION_SECRET rotation (SESSION_PREVIOUS_SECRETS).
import t from '../tap.ts'
import { createSigner } from 'fast-jwt'
import { build, sessionCookie, signedInUser } from '../helper.ts'
import { ACCESS_DENIED, claims, FAST_ARGON2, info, post, refresh } from '../accounts/support.ts'

const NEW_SECRET = 'the-new-jwt-secret-0123456789abcdefghijklmn'
const OLD_SECRET = 'the-old-jwt-secret-0123456789abcdefghijklmn'
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

t.test('forged, expired, rotated and garbage tokens', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, JWT_SECRET: NEW_SECRET, JWT_PREVIOUS_SECRETS: `unused-secret-0123456789abcdefghijklmnopq, ${OLD_SECRET}` })
  const { email, token } = await signedInUser(app)
  const { sub, sid } = claims(token) as { sub: string, sid: string }
  const now = Math.floor(Date.now() / 1000)
  t.equal((await info(app, token)).statusCode, 200, 'the genuine token works')

  const refused = async (what: string, jwt: string) => {
    const res = await info(app, jwt)
    t.equal(res.statusCode, 401, what)
    t.has(res.json(), ACCESS_DENIED, what)
  }

  await refused('alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub, sid, iat: now, exp: now + 3600 })}.`)
  await refused('alg none with the genuine signature', `${b64({ alg: 'none', typ: 'JWT' })}.${token.split('.')[1]}.${token.split('.')[2]}`)
  const [h, , s] = token.split('.')
  await refused('claims changed under the genuine signature', `${h}.${b64({ ...claims(token), sub: '00000000-0000-0000-0000-000000000000' })}.${s}`)
  const foreign = createSigner({ key: 'some-other-secret-0123456789abcdefghijklm', algorithm: 'HS256', expiresIn: 3600_000 })
  await refused('a wrong signature', foreign({ sub, sid }))
  const hs512 = createSigner({ key: NEW_SECRET, algorithm: 'HS512', expiresIn: 3600_000 })
  await refused('HS512 with the right secret (HS256 is pinned)', hs512({ sub, sid }))
  await refused('expired', app.jwt.sign({ sub, sid, iat: now - 2 * 86400 }))
  // a token accepted once is kept as verified, until its own expiry and not a moment longer
  const { iat, exp } = claims(token) as { iat: number, exp: number }
  const expiresAt = Math.floor(Date.now() / 1000) + 2
  const shortLived = app.jwt.sign({ sub, sid, iat: expiresAt - (exp - iat) })
  t.equal((await info(app, shortLived)).statusCode, 200, 'a token about to expire is accepted')
  await new Promise((resolve) => setTimeout(resolve, expiresAt * 1000 - Date.now() + 10))
  await refused('the same token once it has expired', shortLived)
  await refused('without a sid', app.jwt.sign({ sub } as never))
  await refused('garbage', 'garbage')
  await refused('three garbage parts', 'a.b.c')
  await refused('a JSON header with no signature', `${b64({ alg: 'HS256' })}.${b64({ sub, sid })}`)

  const old = createSigner({ key: OLD_SECRET, algorithm: 'HS256', expiresIn: 3600_000 })
  const rotated = old({ sub, sid })
  const accepted = await info(app, rotated)
  t.equal(accepted.statusCode, 200, 'a token of JWT_PREVIOUS_SECRETS is accepted')
  t.equal(accepted.json().email, email)
  await refused('an expired token of JWT_PREVIOUS_SECRETS', old({ sub, sid, iat: now - 2 * 3600 }))

  for (const header of ['', 'Bearer', `Basic ${token}`, `Bearer ${token} ${token}`, `Token ${token}`]) {
    const res = await app.inject({ url: '/api/v1/auth/info', headers: { authorization: header } })
    t.has(res.json(), ACCESS_DENIED, `Authorization: ${header.slice(0, 12)}…`)
  }
  // the scheme is case-insensitive and the token may have spaces around it (RFC 7235 2.1)
  for (const header of [`bearer ${token}`, `BEARER ${token}`, `Bearer  ${token}`, `Bearer ${token} `, `Bearer\t${token}`]) {
    const res = await app.inject({ url: '/api/v1/auth/info', headers: { authorization: header } })
    t.equal(res.statusCode, 200, `Authorization: ${JSON.stringify(header.slice(0, 9))}… is accepted`)
  }
  const none = await app.inject({ url: '/api/v1/auth/info' })
  t.equal(none.statusCode, 401)
  t.has(none.json(), ACCESS_DENIED, 'no Authorization header')

  // Signed with the right key but missing a claim the service needs: no expiry (it would never
  // expire), no session, no user. Refused under the current secret and under a previous one.
  for (const [name, key] of [['JWT_SECRET', NEW_SECRET], ['JWT_PREVIOUS_SECRETS', OLD_SECRET]]) {
    const noExpiry = createSigner({ key, algorithm: 'HS256' })
    const expiring = createSigner({ key, algorithm: 'HS256', expiresIn: 3600_000 })
    t.equal((await info(app, expiring({ sub, sid }))).statusCode, 200, `${name}: the same claims with exp are accepted`)
    await refused(`${name}: without exp`, noExpiry({ sub, sid }))
    await refused(`${name}: without exp, with iat`, noExpiry({ sub, sid, iat: now }))
    await refused(`${name}: without sid`, expiring({ sub }))
    await refused(`${name}: without sub`, expiring({ sid }))
  }

  // Rotation never resurrects an ended session.
  await post(app, '/auth/signout', undefined, { authorization: `Bearer ${token}` })
  await refused('a previous-secret token of a signed-out session', old({ sub, sid }))
})

t.test('a token whose sid or sub is not in the printed form is refused (401), on every route and whether its session ended or not', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { token } = await signedInUser(app)
  const { sub, sid } = claims(token) as { sub: string, sid: string }
  const endOthers = (jwt: string) => app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions', headers: { authorization: `Bearer ${jwt}` } })
  t.equal((await endOthers(token)).statusCode, 200, 'the genuine token passes the fresh-proof route')
  const odd: Array<[string, { sub: string, sid: string }]> = [
    ['a sid that is no UUID', { sub, sid: 'not-a-session' }],
    ['an upper-case sid', { sub, sid: sid.toUpperCase() }],
    ['a sid in braces', { sub, sid: `{${sid}}` }],
    ['a urn:uuid: sid', { sub, sid: `urn:uuid:${sid}` }],
    ['a sid without hyphens', { sub, sid: sid.replace(/-/g, '') }],
    ['a sub that is no UUID', { sub: 'not-a-user', sid }],
    ['an upper-case sub', { sub: sub.toUpperCase(), sid }]
  ]
  for (const [what, payload] of odd) {
    const jwt = app.jwt.sign(payload)
    for (const [route, res] of [['GET /auth/info', await info(app, jwt)], ['DELETE /auth/sessions (fresh proof)', await endOthers(jwt)]] as const) {
      t.same({ status: res.statusCode, body: res.json() }, { status: 401, body: ACCESS_DENIED }, `${what}: ${route}`)
    }
  }
  // the session ends: its sid in any other case is no way around the ended set
  await post(app, '/auth/signout', undefined, { authorization: `Bearer ${token}` })
  t.equal((await info(app, token)).statusCode, 401, 'the signed-out token is refused')
  const upper = await info(app, app.jwt.sign({ sub, sid: sid.toUpperCase() }))
  t.same({ status: upper.statusCode, body: upper.json() }, { status: 401, body: ACCESS_DENIED }, 'and so is its sid in upper case')
})

t.test('session cookies signed with a rotated-out SESSION_SECRET keep working from SESSION_PREVIOUS_SECRETS', async (t) => {
  const OLD_SESSION = 'the-old-session-secret-0123456789abcdefghij'
  const NEW_SESSION = 'the-new-session-secret-0123456789abcdefghij'
  const before = await build(t, { ...FAST_ARGON2, SESSION_SECRET: OLD_SESSION })
  const { email, cookie } = await signedInUser(before)
  // the instances after the rotation, on the same database
  const rotated = await build(t, { ...FAST_ARGON2, SESSION_SECRET: NEW_SESSION, SESSION_PREVIOUS_SECRETS: OLD_SESSION }, { database: before.database })
  const unrotated = await build(t, { ...FAST_ARGON2, SESSION_SECRET: NEW_SESSION }, { database: before.database })

  const refused = await refresh(unrotated, cookie)
  t.equal(refused.statusCode, 401, 'without the previous secret, the old cookie is refused')
  t.has(refused.json(), ACCESS_DENIED)
  const res = await refresh(rotated, cookie)
  t.equal(res.statusCode, 200, 'with it, the old cookie still refreshes')
  t.equal(res.json().status, 'success')
  t.equal((await info(rotated, res.json().token)).json().email, email)
  const renewed = sessionCookie(res)
  t.ok(renewed, 'the old cookie is answered with a new one')
  t.not(renewed, cookie, 'signed with the new secret')
  t.equal((await refresh(unrotated, renewed)).statusCode, 200, 'which an instance without the previous secret accepts')
  const fresh = await signedInUser(rotated, { email, signUp: false })
  t.equal((await refresh(unrotated, fresh.cookie)).statusCode, 200, 'new cookies are signed with the new secret')
})

t.test('a session refreshed again within a second gets the same token; the next second a new one', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, JWT_TTL: '900' })
  const { token } = await signedInUser(app)
  const { sub, sid } = claims(token) as { sub: string, sid: string }
  const realNow = Date.now
  t.teardown(() => { Date.now = realNow })
  // the middle of a second, so that both calls fall in it
  const second = Math.floor(realNow() / 1000) + 5
  Date.now = () => second * 1000 + 500
  const first = app.issueToken({ id: sub, sid })
  t.equal(app.issueToken({ id: sub, sid }), first, 'the same second: the same token')
  t.same(claims(first), { sub, sid, iat: second, exp: second + 900 }, 'its claims are those of a new signature')
  Date.now = () => (second + 1) * 1000 + 500
  const next = app.issueToken({ id: sub, sid })
  t.not(next, first, 'the next second: a new token')
  t.same(claims(next), { sub, sid, iat: second + 1, exp: second + 901 })
  const other = app.issueToken({ id: sub, sid: '00000000-0000-0000-0000-000000000000' })
  t.not(other, next, 'another session: its own token')
  Date.now = realNow
  t.equal((await info(app, first)).statusCode, 200, 'the kept token verifies')
  t.equal((await info(app, next)).statusCode, 200)
})
