// The account page's sessions and password change: GET /auth/sessions lists the user's
// live sessions with where they began; DELETE /auth/sessions/{id} and DELETE /auth/sessions end them
// (their JWTs refused at once); POST /auth/password checks the current password as sign-in does, ends
// every other session and mails a notice. One app for the file, mail to a local SMTP peer.
import t from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, GOOD_PASSWORD, registeredUser, sessionCookie, uniqueEmail } from '../helper.ts'
import { startSmtp, type SmtpPeer } from '../peers/smtp.ts'
import { sameDatabase } from '../streams/databases.ts'
import { ACCESS_DENIED, claims, FAST_ARGON2, info, refresh } from '../accounts/support.ts'

const NEW_PASSWORD = 'a brand new correct horse 7'
let app: FastifyInstance
let smtp: SmtpPeer

t.before(async () => {
  smtp = await startSmtp(t)
  app = await build(t, { ...FAST_ARGON2, SMTP_URL: smtp.url })
})

/** sign in from a given browser and network */
async function signinFrom (email: string, userAgent: string, remoteAddress: string, password = GOOD_PASSWORD) {
  const res = await app.inject({
    method: 'POST', url: '/api/v1/auth/signin', remoteAddress, headers: { 'user-agent': userAgent }, payload: { email, password, token: true }
  })
  if (res.json().status !== 'success') throw new Error(`signin failed: ${res.body}`)
  const token = res.json().token as string
  return { token, cookie: sessionCookie(res)!, sid: claims(token).sid as string, auth: { authorization: `Bearer ${token}` } }
}

const list = (auth: Record<string, string>) => app.inject({ url: '/api/v1/auth/sessions', headers: auth })
const end = (auth: Record<string, string>, id?: string) =>
  app.inject({ method: 'DELETE', url: `/api/v1/auth/sessions${id ? `/${id}` : ''}`, headers: auth })
const changePassword = (auth: Record<string, string>, body: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/password', headers: auth, payload: body })

t.test('GET /auth/sessions: live sessions, most recently used first, with where they began; never the cookie secret', async (t) => {
  const { email } = await registeredUser(app)
  const laptop = await signinFrom(email, 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', '203.0.113.77')
  const phone = await signinFrom(email, 'Mozilla/5.0 (iPhone) Safari/604.1', '2001:db8:1234:5678::1')
  const stranger = await signinFrom((await registeredUser(app)).email, 'curl/8', '198.51.100.1')

  const res = await list(phone.auth)
  t.equal(res.statusCode, 200)
  const { items } = res.json()
  t.same(items.map((s: { id: string }) => s.id), [phone.sid, laptop.sid], "the user's two sessions, the newest use first")
  t.match(items[0], { id: phone.sid, userAgent: 'Mozilla/5.0 (iPhone) Safari/604.1', device: 'Safari on iOS', ipPrefix: '2001:db8:1234::/48', current: true })
  t.match(items[1], { id: laptop.sid, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', device: 'Firefox on Linux', ipPrefix: '203.0.113.0/24', current: false })
  for (const s of items) {
    t.ok(Date.parse(s.createdAt) <= Date.parse(s.lastUsedAt), 'last use is not before sign-in')
    t.same(Object.keys(s).sort(), ['createdAt', 'current', 'device', 'id', 'ipPrefix', 'lastUsedAt', 'userAgent'])
  }
  const [{ id: secret }] = await app.database.query<{ id: string }>('select id from sessions where public_id = $1', [phone.sid])
  t.notMatch(res.body, secret, 'the cookie secret is nowhere in the answer')
  t.notMatch(res.body, stranger.sid, "another user's session is not listed")
  const [row] = await app.database.query<{ method: string }>('select method from sessions where public_id = $1', [phone.sid])
  t.equal(row.method, 'password', 'the sign-in method is recorded')

  t.has((await list({})).json(), ACCESS_DENIED, 'Bearer required')
})

t.test('the device a person reads: the User-Agent parsed, null when it names nothing known', async (t) => {
  const { email } = await registeredUser(app)
  const agents = {
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36': 'Chrome on Linux',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36 Edg/141.0.0.0': 'Microsoft Edge on Windows',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7; rv:140.0) Gecko/20100101 Firefox/140.0': 'Firefox on macOS',
    'curl/8.5.0': null
  }
  let last = { auth: {} as Record<string, string> }
  for (const ua of Object.keys(agents)) last = await signinFrom(email, ua, '203.0.113.9')
  const { items } = (await list(last.auth)).json() as { items: Array<{ userAgent: string, device: string | null }> }
  t.same(Object.fromEntries(items.map((s) => [s.userAgent, s.device])), agents)
})

t.test('lastUsedAt follows use: a refresh that rolls the session moves it', async (t) => {
  const { email } = await registeredUser(app)
  const s = await signinFrom(email, 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', '203.0.113.10')
  const lastUsed = async () => (await list(s.auth)).json().items.find((x: { id: string }) => x.id === s.sid).lastUsedAt as string
  // the session was last used ten minutes ago, as far as the database knows; a second instance on the
  // same database keeps no row of it, so its refresh reads that one and rolls it on
  const then = new Date(Date.now() - 10 * 60_000)
  await app.database.query('update sessions set last_used_at = $1 where public_id = $2', [then.toISOString(), s.sid])
  t.equal(Date.parse(await lastUsed()), then.getTime(), 'listed as last used ten minutes ago')
  const other = await build(t, FAST_ARGON2, { database: await sameDatabase(t, app.database) })
  const before = Date.now()
  const res = await refresh(other, s.cookie)
  t.equal(res.json().status, 'success', res.body)
  t.ok(Date.parse(await lastUsed()) >= before - 1000, 'the refresh rolled it: last used now')
})

t.test('DELETE /auth/sessions/{id}: ends one session of the user; 404 for an unknown id or another user\'s', async (t) => {
  const { email } = await registeredUser(app)
  const a = await signinFrom(email, 'browser A', '203.0.113.1')
  const b = await signinFrom(email, 'browser B', '203.0.113.2')
  const other = await signinFrom((await registeredUser(app)).email, 'browser C', '203.0.113.3')

  const notMine = await end(a.auth, other.sid)
  t.equal(notMine.statusCode, 404)
  t.has(notMine.json(), { code: 404, message: 'session not found' })
  t.equal((await info(app, other.token)).statusCode, 200, "the other user's session goes on")
  t.equal((await end(a.auth, '00000000-0000-4000-8000-000000000000')).statusCode, 404, 'an unknown id')
  t.equal((await end(a.auth, 'not-a-uuid')).statusCode, 404, 'a malformed id names nothing: 404')

  const res = await end(a.auth, b.sid)
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'success' })
  t.has((await info(app, b.token)).json(), ACCESS_DENIED, "the ended session's JWT is refused at once")
  t.equal((await refresh(app, b.cookie)).statusCode, 401, 'and its cookie refreshes nothing')
  t.equal((await end(a.auth, b.sid)).statusCode, 404, 'an ended session is not found again')
  t.same((await list(a.auth)).json().items.map((s: { id: string }) => s.id), [a.sid])

  // ending the current one signs out
  const self = await end(a.auth, a.sid)
  t.equal(self.statusCode, 200)
  t.match(String(self.headers['set-cookie']), /^sid=;/, 'the cookie is cleared')
  t.has((await info(app, a.token)).json(), ACCESS_DENIED, 'signed out')
})

t.test('DELETE /auth/sessions: ends every session of the user but the current one', async (t) => {
  const { email } = await registeredUser(app)
  const keep = await signinFrom(email, 'keep', '203.0.113.10')
  const others = [await signinFrom(email, 'one', '203.0.113.11'), await signinFrom(email, 'two', '203.0.113.12')]
  const stranger = await signinFrom((await registeredUser(app)).email, 'stranger', '203.0.113.13')

  const res = await end(keep.auth)
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'success' })
  for (const o of others) t.equal((await info(app, o.token)).statusCode, 401, 'another session ended')
  t.equal((await info(app, keep.token)).statusCode, 200, 'the current one goes on')
  t.equal((await info(app, stranger.token)).statusCode, 200, "another user's sessions are untouched")
  t.same((await list(keep.auth)).json().items.map((s: { id: string }) => s.id), [keep.sid])
  t.same((await end(keep.auth)).json(), { status: 'success' }, 'nothing left to end is still success')
  const kinds = await app.database.query<{ kind: string }>("select kind from audit_events where kind = 'session.end' and user_id = $1", [claims(keep.token).sub])
  t.equal(kinds.length, 1, 'audited once (the call that ended something)')
})

t.test('POST /auth/password: the current password, the sign-up policy, other sessions end, a notice is mailed', async (t) => {
  const { email } = await registeredUser(app)
  const here = await signinFrom(email, 'here', '203.0.113.20')
  const there = await signinFrom(email, 'there', '203.0.113.21')

  const wrong = await changePassword(here.auth, { currentPassword: 'not my password', newPassword: NEW_PASSWORD })
  t.equal(wrong.statusCode, 200)
  t.same(wrong.json(), { status: 'error', fieldError: { field: 'password', message: 'Your current password is wrong' } })
  const [failures] = await app.database.query<{ failures: number }>('select failures from signin_failures where email = $1', [email])
  t.equal(failures.failures, 1, "a wrong current password counts against the address's sign-in backoff")

  const weak = [
    [{ currentPassword: GOOD_PASSWORD, newPassword: 'short' }, 'Password must be at least 8 characters'],
    [{ currentPassword: GOOD_PASSWORD, newPassword: 'password123' }, 'This password is too common, choose another one'],
    [{ currentPassword: GOOD_PASSWORD, newPassword: email }, 'Password must not be your e-mail address'],
    [{ newPassword: NEW_PASSWORD }, 'Enter your current password']
  ] as const
  for (const [body, message] of weak) {
    const res = await changePassword(here.auth, body)
    t.equal(res.statusCode, 200)
    t.same(res.json(), { status: 'error', fieldError: { field: 'password', message } }, message)
  }
  t.equal((await info(app, there.token)).statusCode, 200, 'refused changes end nothing')

  const before = smtp.mails.length
  const ok = await changePassword(here.auth, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD })
  t.same(ok.json(), { status: 'success' })
  t.equal((await info(app, there.token)).statusCode, 401, 'every other session ended')
  t.equal((await info(app, here.token)).statusCode, 200, 'this one goes on')
  const mail = await smtp.waitFor((m) => smtp.mails.indexOf(m) >= before && m.to.includes(email) && m.subject === 'Security notice: Your password was changed')
  t.match(mail.text, /Every other session of the account was signed out/)
  t.notMatch(mail.text, NEW_PASSWORD, 'the mail holds no password')

  const old = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email, password: GOOD_PASSWORD } })
  t.equal(old.json().status, 'error', 'the old password no longer signs in')
  const fresh = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email, password: NEW_PASSWORD } })
  t.equal(fresh.json().status, 'success', 'the new one does')
  const kinds = await app.database.query<{ kind: string }>("select kind from audit_events where kind = 'password.change' and user_id = $1", [claims(here.token).sub])
  t.equal(kinds.length, 1, 'audited')
  t.has((await changePassword({}, { currentPassword: 'x', newPassword: NEW_PASSWORD })).json(), ACCESS_DENIED, 'Bearer required')
})

t.test('POST /auth/password: the sign-in backoff answers 429 once an address has failed five times', async (t) => {
  const { email } = await registeredUser(app)
  const s = await signinFrom(email, 'ua', '203.0.113.30')
  for (let i = 0; i < 5; i++) {
    const res = await changePassword(s.auth, { currentPassword: `wrong ${i}`, newPassword: NEW_PASSWORD })
    t.equal(res.json().status, 'error', `wrong guess ${i + 1}`)
  }
  const locked = await changePassword(s.auth, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD })
  t.equal(locked.statusCode, 429)
  t.has(locked.json(), { code: 429, message: 'too many requests' })
  t.ok(Number(locked.headers['retry-after']) >= 1, 'Retry-After')
})

t.test('POST /auth/password: a Google-only account is told to set its first password through recovery', async (t) => {
  const email = uniqueEmail('google-only')
  const [{ id }] = await app.database.query<{ id: string }>('insert into users (email, google_sub, confirmed_at) values ($1, $2, now()) returning id', [email, `sub-${email}`])
  const token = app.issueToken({ id, sid: '00000000-0000-4000-8000-00000000000a' })
  await app.database.query("insert into sessions (id, public_id, user_id, data, expires_at, method) values ('google-only-session', '00000000-0000-4000-8000-00000000000a', $1, '{}', now() + interval '1 day', 'google')", [id])
  const res = await changePassword({ authorization: `Bearer ${token}` }, { currentPassword: 'anything', newPassword: NEW_PASSWORD })
  t.equal(res.statusCode, 200)
  t.equal(res.json().status, 'error')
  t.equal(res.json().fieldError.field, 'password')
  t.match(res.json().fieldError.message, /recovery link/)
})
