// POST /auth/signin: the JWT, the cookie and its flags, identical failures, no
// session fixation.
import t from '../tap.ts'
import argon2 from 'argon2'
import { build, freshDatabase, GOOD_PASSWORD, registeredUser, sessionCookie, uniqueEmail } from '../helper.ts'
import { claims, FAST_ARGON2, info, post, refresh, setCookieLine, signin, WRONG_CREDENTIALS } from './support.ts'

t.test('success: a 24-hour HS256 JWT when token is true, the cookie always', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { email } = await registeredUser(app)

  const res = await signin(app, { email, token: true })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(Object.keys(body).sort(), ['status', 'token'])
  t.equal(body.status, 'success')
  const header = JSON.parse(Buffer.from(body.token.split('.')[0], 'base64url').toString())
  t.equal(header.alg, 'HS256')
  const c = claims(body.token)
  t.equal((c.exp as number) - (c.iat as number), 86400, 'exp - iat is 24 hours')
  t.type(c.sid, 'string')
  t.ok(sessionCookie(res), 'the session cookie is set')

  const me = await info(app, body.token)
  t.equal(me.statusCode, 200)
  t.equal(me.json().id, c.sub, 'sub is the user id')
  t.equal(me.json().email, email)
  t.equal(me.json().confirmed, false, 'an unconfirmed account may sign in')

  for (const token of [false, undefined]) {
    const res = await signin(app, { email, ...(token === undefined ? {} : { token }) })
    t.same(res.json(), { status: 'success' }, `token ${token}: no JWT in the body`)
    t.ok(sessionCookie(res), `token ${token}: the cookie is still set`)
    const fresh = await refresh(app, sessionCookie(res))
    t.equal(fresh.statusCode, 200, 'and it is a live session')
  }
})

t.test('the e-mail is trimmed and lower-cased', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const email = uniqueEmail('Mixed')
  await registeredUser(app, { email: `  ${email.toUpperCase()} ` })
  const res = await signin(app, { email: ` ${email.replace('mixed', 'MIXED')}  ` , token: true })
  t.equal(res.json().status, 'success', res.body)
  t.equal((await info(app, res.json().token)).json().email, email.toLowerCase())
})

t.test('cookie flags; remember:false is a browser-session cookie, also after refresh', async (t) => {
  let clock = Date.now()
  const app = await build(t, FAST_ARGON2, { now: () => clock })
  const { email } = await registeredUser(app)

  const line = setCookieLine(await signin(app, { email }))!
  t.ok(line)
  const attrs = line.split(/;\s*/).slice(1).map((a) => a.split('=')[0].toLowerCase())
  t.ok(attrs.includes('httponly'), 'HttpOnly')
  t.ok(attrs.includes('secure'), 'Secure')
  t.match(line, /;\s*SameSite=Lax(;|$)/i, 'SameSite=Lax')
  t.match(line, /;\s*Path=\/api\/v1(;|$)/, 'Path=/api/v1')
  t.ok(attrs.includes('expires') || attrs.includes('max-age'), 'a remembered session outlives the browser')
  const expires = Date.parse(/Expires=([^;]+)/i.exec(line)![1])
  t.ok(expires > Date.now() + 6 * 86400_000 && expires <= Date.now() + 7 * 86400_000, 'for SESSION_IDLE_TTL (7 days)')

  const res = await signin(app, { email, remember: false, token: true })
  const session = setCookieLine(res)!
  t.ok(session)
  t.notMatch(session, /max-age|expires/i, 'remember:false: no Max-Age, no Expires')
  t.match(session, /HttpOnly/)
  t.match(session, /Secure/)
  t.equal(claims(res.json().token).exp as number - (claims(res.json().token).iat as number), 86400, 'remember never changes the JWT lifetime')

  // a refresh rolls the session at most once a minute: two minutes on, this one rolls it
  clock += 2 * 60_000
  const rolled = await refresh(app, sessionCookie(res))
  t.equal(rolled.statusCode, 200)
  const again = setCookieLine(rolled)!
  t.ok(again, 'the rolled session cookie is sent again')
  t.notMatch(again, /max-age|expires/i, 'a refresh keeps it a browser-session cookie')
})

t.test('unknown e-mail and wrong password: the same answer, and both run argon2', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { email } = await registeredUser(app)
  const verify = t.capture(argon2, 'verify', argon2.verify)

  const wrong = await signin(app, { email, password: 'not the password' })
  const wrongCalls = verify.calls.length
  const unknownEmail = uniqueEmail('nobody')
  const unknown = await signin(app, { email: unknownEmail, password: 'not the password' })

  t.equal(wrong.statusCode, 200)
  t.equal(unknown.statusCode, 200)
  t.same(wrong.json(), WRONG_CREDENTIALS)
  t.equal(unknown.body, wrong.body, 'byte-identical bodies')
  t.equal(setCookieLine(wrong), undefined, 'no cookie on failure')
  t.equal(setCookieLine(unknown), undefined)
  t.equal(wrongCalls, 1, 'a wrong password is one argon2 verify')
  t.equal(verify.calls.length - wrongCalls, 1, 'an unknown e-mail is one argon2 verify too (against the dummy hash)')
  t.match(verify.calls[1].args[0], /^\$argon2id\$/, 'against a real argon2id hash')

  const failures = await app.database.query<{ email: string, failures: number }>(
    'select email, failures from signin_failures where email = any($1) order by email', [[email, unknownEmail]])
  t.same(failures.map((f) => [f.email, f.failures]).sort(), [[email, 1], [unknownEmail, 1]].sort(), 'both failures are counted')
})

t.test('the session id changes at sign-in; the cookie sent in is dead afterwards', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { email } = await registeredUser(app)

  const first = await signin(app, { email })
  const before = sessionCookie(first)!
  t.equal((await refresh(app, before)).statusCode, 200, 'the first cookie is live')

  const second = await signin(app, { email }, { cookie: before })
  const after = sessionCookie(second)!
  t.ok(after)
  t.not(after, before, 'a new session id')
  t.has((await refresh(app, before)).json(), { code: 401, message: 'access denied' }, 'the old session is ended')
  t.equal((await refresh(app, after)).statusCode, 200, 'the new one is live')

  // A cookie planted by someone else (a made-up id) is replaced too, never adopted.
  const planted = 'sid=attacker-chosen-session-id'
  const third = await signin(app, { email }, { cookie: planted })
  t.equal(third.json().status, 'success')
  t.not(sessionCookie(third), planted)
  t.equal((await refresh(app, planted)).statusCode, 401)

  // A correctly signed cookie of a session that has ended is not revived either: a fresh id.
  const jwt = (await refresh(app, after)).json().token as string
  t.equal((await post(app, '/auth/signout', undefined, { authorization: `Bearer ${jwt}`, cookie: after })).statusCode, 200)
  const fourth = await signin(app, { email }, { cookie: after })
  t.equal(fourth.json().status, 'success')
  t.ok(sessionCookie(fourth))
  t.not(sessionCookie(fourth), after, 'not the signed-out id')
  t.has((await refresh(app, after)).json(), { code: 401, message: 'access denied' }, 'the signed-out cookie stays dead')
  t.equal((await refresh(app, sessionCookie(fourth))).statusCode, 200, 'the new one is live')
})

t.test('a wrong password of a registered account does not start a session', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { email } = await registeredUser(app)
  const res = await signin(app, { email, password: GOOD_PASSWORD + 'x', token: true })
  t.same(res.json(), WRONG_CREDENTIALS)
  const rows = await app.database.query<{ n: number }>('select count(*)::int as n from sessions')
  t.equal(rows[0].n, 0)
})

t.test('argon2id parameters changed: the hash is upgraded at the next sign-in', async (t) => {
  const database = await freshDatabase(t)
  const before = await build(t, FAST_ARGON2, { database })
  const { email } = await registeredUser(before)
  const hash = async () => (await database.query<{ password_hash: string }>('select password_hash from users where email = $1', [email]))[0].password_hash
  t.match(await hash(), /^\$argon2id\$v=19\$m=1024,p=1,t=1\$/, 'hashed with the old parameters')

  const after = await build(t, { ARGON2_MEMORY_KIB: '2048', ARGON2_TIME_COST: '2' }, { database })
  t.same((await signin(after, { email })).json(), { status: 'success' }, 'the old hash still verifies')
  t.match(await hash(), /^\$argon2id\$v=19\$m=2048,p=1,t=2\$/, 're-hashed with the new ones')
  t.same((await signin(after, { email })).json(), { status: 'success' }, 'and the new hash verifies')
  t.same((await signin(after, { email, password: 'not the password' })).json(), WRONG_CREDENTIALS, 'a wrong password never re-hashes')
  t.match(await hash(), /m=2048,p=1,t=2/)
})
