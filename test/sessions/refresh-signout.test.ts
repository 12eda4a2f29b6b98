// POST /auth/token/refresh and POST /auth/signout.
import t from '../tap.ts'
import { build, freshDatabase, registeredUser, sessionCookie, signedInUser } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { ACCESS_DENIED, claims, FAST_ARGON2, info, post, refresh, setCookieLine } from '../accounts/support.ts'

const DAY = 86400_000

t.test('refresh: a fresh JWT of the same session, also after the previous one expired', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { email, token, cookie } = await signedInUser(app)
  const { sub, sid } = claims(token) as { sub: string, sid: string }

  const res = await refresh(app, cookie)
  t.equal(res.statusCode, 200)
  t.same(Object.keys(res.json()).sort(), ['status', 'token'])
  t.equal(res.json().status, 'success')
  const fresh = claims(res.json().token)
  t.equal(fresh.sub, sub)
  t.equal(fresh.sid, sid, 'the same session')
  t.equal((fresh.exp as number) - (fresh.iat as number), 86400)
  t.equal((await info(app, res.json().token)).statusCode, 200)

  // A JWT of this session that expired a day ago: refused, while the cookie still gets a new one.
  const expired = app.jwt.sign({ sub, sid, iat: Math.floor(Date.now() / 1000) - 2 * 86400 })
  t.ok((claims(expired).exp as number) < Date.now() / 1000, 'the token is expired')
  t.has((await info(app, expired)).json(), ACCESS_DENIED)
  const again = await refresh(app, cookie)
  t.equal(again.statusCode, 200, again.body)
  t.equal((await info(app, again.json().token)).json().email, email, 'the new JWT works')
})

t.test('refresh without a signed-in session is 401 access denied', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { email, cookie } = await signedInUser(app)
  const forged = cookie.replace(/\.[^.]+$/, '.' + 'A'.repeat(43))

  for (const [what, c] of [['no cookie', undefined], ['a garbage cookie', 'sid=garbage'], ['a cookie with a bad signature', forged]] as const) {
    const res = await refresh(app, c)
    t.equal(res.statusCode, 401, what)
    t.has(res.json(), ACCESS_DENIED, what)
    const line = setCookieLine(res)
    t.ok(line === undefined || /^sid=;/.test(line), `${what}: no session cookie is set (at most a clearing one)`)
  }
  // a Bearer token is not a session
  const { token } = await signedInUser(app, { email, signUp: false })
  t.equal((await refresh(app, undefined, { authorization: `Bearer ${token}` })).statusCode, 401)
})

t.test('the session rolls on refresh by SESSION_IDLE_TTL and ends after SESSION_IDLE_TTL without one', async (t) => {
  let clock = Date.parse('2030-01-01T00:00:00Z')
  const app = await build(t, FAST_ARGON2, { now: () => clock })
  const { cookie, token } = await signedInUser(app)
  // raw queries return timestamps as Date on PGlite and as text on postgres.js: compare instants
  const expiresAt = async () => new Date((await app.database.query<{ e: Date | string }>('select expires_at as e from sessions where public_id = $1', [claims(token).sid]))[0].e)
  t.equal((await expiresAt()).getTime(), clock + 7 * DAY, 'SESSION_IDLE_TTL from sign-in')

  clock += 5 * DAY
  const res = await refresh(app, cookie)
  t.equal(res.statusCode, 200)
  t.equal((await expiresAt()).getTime(), clock + 7 * DAY, 'rolled forward by the refresh')
  t.ok(setCookieLine(res), 'the cookie is sent again with its new expiry')

  // within the minute after a roll, a refresh gives a token and rolls nothing: no write, no cookie
  const rolledTo = (await expiresAt()).getTime()
  clock += 30_000
  const soon = await refresh(app, cookie)
  t.equal(soon.statusCode, 200)
  t.equal(soon.json().status, 'success')
  t.equal(setCookieLine(soon), undefined, 'no Set-Cookie within a minute of the last roll')
  t.equal((await expiresAt()).getTime(), rolledTo, 'the stored expiry stays')
  clock += 31_000
  const later = await refresh(app, cookie)
  t.ok(setCookieLine(later), 'a minute after the roll, the cookie is sent again')
  t.equal((await expiresAt()).getTime(), clock + 7 * DAY, 'and the stored expiry rolls')

  clock += 7 * DAY + 1000
  t.has((await refresh(app, cookie)).json(), ACCESS_DENIED, 'expired server-side after a week unused')
})

t.test('refresh never extends a session past SESSION_ABSOLUTE_TTL from sign-in', async (t) => {
  let clock = Date.parse('2030-01-01T00:00:00Z')
  const signedInAt = clock
  const app = await build(t, FAST_ARGON2, { now: () => clock })
  const { cookie, token } = await signedInUser(app)
  const row = async () => (await app.database.query<{ e: Date | string, u: Date | string }>(
    'select expires_at as e, last_used_at as u from sessions where public_id = $1', [claims(token).sid]))[0]
  const expiresOf = (line: string) => Date.parse(/;\s*Expires=([^;]+)/i.exec(line)![1])

  // used every 6 days: never idle for a week, so only the absolute lifetime ends it
  for (let day = 6; day <= 18; day += 6) {
    clock = signedInAt + day * DAY
    const res = await refresh(app, cookie)
    t.equal(res.statusCode, 200, `day ${day}: refreshed`)
    t.equal(new Date((await row()).e).getTime(), clock + 7 * DAY, `day ${day}: a week from now`)
    t.equal(new Date((await row()).u).getTime(), clock, `day ${day}: last_used_at is the refresh`)
  }
  clock = signedInAt + 24 * DAY
  const capped = await refresh(app, cookie)
  t.equal(capped.statusCode, 200)
  t.equal(new Date((await row()).e).getTime(), signedInAt + 30 * DAY, 'day 24: the expiry stops at 30 days from sign-in, not a week on')
  t.equal(expiresOf(setCookieLine(capped)!), Math.floor((signedInAt + 30 * DAY) / 1000) * 1000, "and so does the cookie's Expires")
  t.equal(new Date((await row()).u).getTime(), clock, 'last_used_at still follows the use')

  clock = signedInAt + 30 * DAY - 1000
  t.equal((await refresh(app, cookie)).statusCode, 200, 'a second before the end, still live')
  clock = signedInAt + 30 * DAY + 1000
  t.has((await refresh(app, cookie)).json(), ACCESS_DENIED, 'ended 30 days after sign-in, used or not')
})

t.test('SESSION_IDLE_TTL and SESSION_ABSOLUTE_TTL are configurable', async (t) => {
  let clock = Date.parse('2030-01-01T00:00:00Z')
  const app = await build(t, { ...FAST_ARGON2, JWT_TTL: '600', SESSION_IDLE_TTL: '3600', SESSION_ABSOLUTE_TTL: '7200' }, { now: () => clock })
  const { cookie } = await signedInUser(app)
  clock += 3000_000
  t.equal((await refresh(app, cookie)).statusCode, 200, 'used within the idle hour')
  clock += 3000_000
  t.equal((await refresh(app, cookie)).statusCode, 200, 'and again')
  clock += 1300_000
  t.has((await refresh(app, cookie)).json(), ACCESS_DENIED, 'two hours after sign-in it is over')
})

t.test('sign-out ends the session: the JWT and the cookie are refused from then on', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { email, token, cookie } = await signedInUser(app)
  const other = await signedInUser(app, { email, signUp: false })
  const auth = { authorization: `Bearer ${token}` }

  const out = await post(app, '/auth/signout', undefined, { ...auth, cookie })
  t.equal(out.statusCode, 200)
  t.same(out.json(), { status: 'success' })
  const cleared = setCookieLine(out)!
  t.ok(cleared, 'the cookie is cleared')
  t.match(cleared, /^sid=;/)
  t.match(cleared, /Path=\/api\/v1/)
  t.match(cleared, /Expires=Thu, 01 Jan 1970|Max-Age=0/)

  t.has((await info(app, token)).json(), ACCESS_DENIED, 'the old JWT')
  t.has((await post(app, '/auth/signout', undefined, auth)).json(), ACCESS_DENIED, 'signing out twice')
  t.has((await refresh(app, cookie)).json(), ACCESS_DENIED, 'the old cookie')
  const ended = await app.database.query<{ n: number }>('select count(*)::int as n from sessions where public_id = $1 and ended_at is not null', [claims(token).sid])
  t.equal(ended[0].n, 1, 'the row is marked ended')

  t.equal((await info(app, other.token)).statusCode, 200, 'another session of the same user lives on')
  t.equal((await refresh(app, other.cookie)).statusCode, 200)
})

t.test('sign-out by Bearer alone also kills the cookie of that session', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { token, cookie } = await signedInUser(app)
  const out = await post(app, '/auth/signout', undefined, { authorization: `Bearer ${token}` })
  t.equal(out.statusCode, 200)
  t.has((await refresh(app, cookie)).json(), ACCESS_DENIED)
})

t.test("sign-out with one session's JWT and another session's cookie ends both", async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { email } = await registeredUser(app)
  const one = await signedInUser(app, { email, signUp: false })
  const two = await signedInUser(app, { email, signUp: false })
  const three = await signedInUser(app, { email, signUp: false })
  const out = await post(app, '/auth/signout', undefined, { authorization: `Bearer ${one.token}`, cookie: two.cookie })
  t.same(out.json(), { status: 'success' })
  t.has((await info(app, one.token)).json(), ACCESS_DENIED, "the JWT's session")
  t.has((await refresh(app, one.cookie)).json(), ACCESS_DENIED)
  t.has((await refresh(app, two.cookie)).json(), ACCESS_DENIED, "the cookie's session")
  t.has((await info(app, two.token)).json(), ACCESS_DENIED, "and every JWT of the cookie's session")
  t.equal((await info(app, three.token)).statusCode, 200, 'a third session lives on')
})

t.test('sign-out needs a Bearer token: a cookie alone or nothing is 401', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { cookie } = await signedInUser(app)
  t.has((await post(app, '/auth/signout')).json(), ACCESS_DENIED)
  const byCookie = await post(app, '/auth/signout', undefined, { cookie })
  t.equal(byCookie.statusCode, 401)
  t.has(byCookie.json(), ACCESS_DENIED)
  t.equal((await refresh(app, cookie)).statusCode, 200, 'the session is untouched')
})

t.test('a second instance on the same database refuses a signed-out JWT within 1 s', async (t) => {
  const database = await freshDatabase(t)
  const a = await build(t, FAST_ARGON2, { database })
  const b = await build(t, FAST_ARGON2, { database })
  const { token } = await signedInUser(a)
  t.equal((await info(b, token)).statusCode, 200, 'B accepts the JWT issued by A')

  const out = await post(a, '/auth/signout', undefined, { authorization: `Bearer ${token}` })
  t.equal(out.statusCode, 200)
  const status = await until(async () => {
    const res = await info(b, token)
    return res.statusCode === 401 ? res : undefined
  }, { timeoutMs: 1000, intervalMs: 10, what: 'instance B to refuse the token' }).catch(() => undefined)
  t.ok(status, 'B refuses it within 1 s')
  t.has(status?.json(), ACCESS_DENIED)
})

t.test('a new instance learns of sessions ended before it started', async (t) => {
  const database = await freshDatabase(t)
  const a = await build(t, FAST_ARGON2, { database })
  const { token } = await signedInUser(a)
  await post(a, '/auth/signout', undefined, { authorization: `Bearer ${token}` })
  const b = await build(t, FAST_ARGON2, { database })
  t.has((await info(b, token)).json(), ACCESS_DENIED)
})

t.test('Origin check on refresh', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, PUBLIC_URL: 'https://pir.example.test', CORS_ORIGINS: 'https://partner.example.test' })
  const { cookie } = await signedInUser(app)
  const forbidden = { code: 403, message: 'access denied' }

  const foreign = await refresh(app, cookie, { origin: 'https://evil.example.test' })
  t.equal(foreign.statusCode, 403)
  t.has(foreign.json(), forbidden, 'a foreign Origin')
  const crossSite = await refresh(app, cookie, { 'sec-fetch-site': 'cross-site' })
  t.equal(crossSite.statusCode, 403)
  t.has(crossSite.json(), forbidden, 'Sec-Fetch-Site: cross-site')
  t.has((await refresh(app, cookie, { origin: 'https://pir.example.test', 'sec-fetch-site': 'cross-site' })).json(), forbidden,
    'cross-site wins over a good Origin')
  t.equal((await refresh(app, cookie, { origin: 'null' })).statusCode, 403, 'an opaque origin')

  t.equal((await refresh(app, cookie, { origin: 'https://pir.example.test' })).statusCode, 200, "PUBLIC_URL's origin")
  t.equal((await refresh(app, cookie, { origin: 'https://partner.example.test' })).statusCode, 200, 'a CORS_ORIGINS origin')
  t.equal((await refresh(app, cookie, { 'sec-fetch-site': 'same-origin' })).statusCode, 200, 'Sec-Fetch-Site: same-origin')
  t.equal((await refresh(app, cookie)).statusCode, 200, 'neither header (a non-browser client)')
  const last = await refresh(app, cookie)
  t.equal(last.json().status, 'success')
  t.equal(sessionCookie(last), undefined, 'rolled at sign-in, less than a minute ago: the cookie is not sent again')
})

t.test('a rolled cookie is the sign-in cookie with a later expiry, and the rolled row is the one @fastify/session reads', async (t) => {
  let clock = Date.parse('2030-01-01T00:00:00Z')
  const app = await build(t, FAST_ARGON2, { now: () => clock })
  const { email, cookie, token, res: signinRes } = await signedInUser(app)
  const other = await signedInUser(app, { email, signUp: false })
  const first = setCookieLine(signinRes)!
  // the value, then the attributes but Expires, in any order
  const withoutExpires = (line: string) => {
    const [value, ...attrs] = line.split(/;\s*/)
    return [value, ...attrs.filter((a) => !/^expires=/i.test(a)).sort()]
  }
  const expiresOf = (line: string) => Date.parse(/;\s*Expires=([^;]+)/i.exec(line)![1])

  clock += 5 * DAY
  const rolled = await refresh(app, cookie)
  t.equal(rolled.statusCode, 200)
  const line = setCookieLine(rolled)!
  t.same(withoutExpires(line), withoutExpires(first), 'the same signed value, Path, HttpOnly, Secure and SameSite')
  t.ok(Math.abs(expiresOf(line) - (clock + 7 * DAY)) < 1000, 'Expires is SESSION_IDLE_TTL from the refresh')
  const [row] = await app.database.query<{ data: { cookie: { expires: string, originalMaxAge: number } } }>(
    'select data from sessions where public_id = $1', [claims(token).sid])
  t.ok(Math.abs(Date.parse(row.data.cookie.expires) - (clock + 7 * DAY)) < 1000, "the stored cookie's expiry rolled with it")
  t.equal(row.data.cookie.originalMaxAge, 7 * DAY, 'and its max age kept')

  // sign-out reads the cookie through @fastify/session: the row refresh wrote is the session it ends
  const out = await post(app, '/auth/signout', undefined, { authorization: `Bearer ${other.token}`, cookie })
  t.equal(out.statusCode, 200)
  t.has((await refresh(app, cookie)).json(), ACCESS_DENIED, 'the rolled session ended with the sign-out')
})

t.test('a session ended while its refresh rolls it is refused, and nothing is written', async (t) => {
  let clock = Date.parse('2030-01-01T00:00:00Z')
  const app = await build(t, FAST_ARGON2, { now: () => clock })
  const { cookie, token } = await signedInUser(app)
  const [{ id }] = await app.database.query<{ id: string }>('select id from sessions where public_id = $1', [claims(token).sid])
  const live = await app.sessions.live(id)
  t.same(live, { sid: id, userId: claims(token).sub, publicId: claims(token).sid }, 'live before')

  // ended by another process (no NOTIFY of the end reaches this one first)
  await app.database.query('update sessions set ended_at = now() where id = $1', [id])
  clock += DAY
  t.equal(await app.sessions.roll(live!), null, 'roll writes nothing over an ended row')
  const [row] = await app.database.query<{ e: Date | string }>('select expires_at as e from sessions where id = $1', [id])
  t.equal(new Date(row.e).getTime(), Date.parse('2030-01-01T00:00:00Z') + 7 * DAY, 'the stored expiry is as it was')
  const res = await refresh(app, cookie)
  t.equal(res.statusCode, 401)
  t.has(res.json(), ACCESS_DENIED)
  t.equal(setCookieLine(res), undefined, 'no cookie')
})

t.test('refresh reads a kept session from memory, and reads the database when none is kept or it has ended', async (t) => {
  let clock = Date.parse('2030-01-01T00:00:00Z')
  const app = await build(t, FAST_ARGON2, { now: () => clock })
  const { cookie, token } = await signedInUser(app)
  const { sub, sid: publicId } = claims(token) as { sub: string, sid: string }
  const [{ id }] = await app.database.query<{ id: string }>('select id from sessions where public_id = $1', [publicId])

  // sign-in wrote the row, so it is kept: live() answers it from memory
  t.ok(app.sessions.isKept(id), 'kept after sign-in')
  t.same(await app.sessions.live(id), { sid: id, userId: sub, publicId }, 'what live() answers')
  t.notOk(app.sessions.isKept('no-such-session'), 'an unknown id: not kept, for the database to answer')

  // within one second (tokens are stamped by the real clock): the same token, and the same bytes
  const iatOf = (res: { json: () => { token: string } }) => claims(res.json().token).iat as number
  let first, second
  do {
    first = await refresh(app, cookie)
    second = await refresh(app, cookie)
  } while (iatOf(first) !== iatOf(second))
  t.equal(first.statusCode, 200)
  t.equal(second.body, first.body, 'the same answer within a second')
  t.equal(second.headers['content-type'], 'application/json; charset=utf-8')
  // the next second: a new token, a new answer
  while (Math.floor(Date.now() / 1000) <= iatOf(first)) await new Promise((resolve) => setTimeout(resolve, 50))
  const later = await refresh(app, cookie)
  t.equal(later.statusCode, 200)
  t.not(later.json().token, first.json().token, 'a new token a second later')
  t.ok(iatOf(later) > iatOf(first))
  t.same(Object.keys(later.json()).sort(), ['status', 'token'])

  // expired by its kept expiry: not answered from memory; the database then says it has expired
  clock += 31 * DAY
  t.notOk(app.sessions.isKept(id), 'an expired kept row is not answered from memory')
  t.has((await refresh(app, cookie)).json(), ACCESS_DENIED, 'the expired session is refused')
})

t.test('a kept session ended elsewhere is not answered from memory once this instance hears of it', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { cookie, token } = await signedInUser(app)
  const publicId = claims(token).sid as string
  const [{ id }] = await app.database.query<{ id: string }>('select id from sessions where public_id = $1', [publicId])
  t.ok(app.sessions.isKept(id), 'kept')
  t.equal((await refresh(app, cookie)).statusCode, 200)

  // another instance ends it and NOTIFYs; the ended set is what the kept row is checked against
  await app.database.query('update sessions set ended_at = now() where id = $1', [id])
  app.sessions.onEndedNotice(publicId)
  t.notOk(app.sessions.isKept(id), 'ended: read again from the database')
  const res = await refresh(app, cookie)
  t.equal(res.statusCode, 401)
  t.has(res.json(), ACCESS_DENIED)
})
