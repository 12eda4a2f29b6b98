// Limits that hold: the per-account backoff lets one argon2 verification through per window however
// many guesses arrive at once; resend has a budget per account; failed authentications have one per
// address, refused before any credential is looked up in the database once spent; per-IP keys
// group IPv6 by /64.
import t from '../tap.ts'
import { randomUUID } from 'node:crypto'
import { build, GOOD_PASSWORD, registeredUser, signedInUser, uniqueEmail } from '../helper.ts'
import { FAST_ARGON2, WRONG_CREDENTIALS } from '../accounts/support.ts'
import { DENIED, infoFrom, ipv4, limited, logLines, ROOMY, signinFrom, tally } from './support.ts'
import { issueKey } from '../api-keys/support.ts'

t.test('the backoff: 200 parallel wrong passwords reach argon2 once per window (counted, not answered)', async (t) => {
  let clock = Date.parse('2031-06-01T10:00:00Z')
  const app = await build(t, { ...FAST_ARGON2, ...ROOMY }, { now: () => clock })
  const passwords = app.services.passwords
  const { email } = await registeredUser(app)
  const burst = (address: string, password = 'wrong password') =>
    Promise.all(Array.from({ length: 200 }, (_, i) => signinFrom(app, ipv4(i + 1), address, password)))

  let before = passwords.verifications
  let answers = await burst(email)
  t.equal(passwords.verifications - before, 5, 'four free failures, then the one that opens the 1 s window')
  t.same(tally(answers), { wrong: 5, tooMany: 195 }, 'the others are refused before argon2')

  clock += 1000
  before = passwords.verifications
  answers = await burst(email)
  t.equal(passwords.verifications - before, 1, 'the next window lets one through')
  t.same(tally(answers), { wrong: 1, tooMany: 199 })

  clock += 2000
  t.same((await signinFrom(app, '192.0.2.1', email, GOOD_PASSWORD)).json(), { status: 'success' }, 'the right password once the wait is over')
  t.same((await signinFrom(app, '192.0.2.1', email)).json(), WRONG_CREDENTIALS, 'a success starts the count again: the next failure is free')

  const unknown = uniqueEmail('nobody')
  before = passwords.verifications
  answers = await burst(unknown)
  t.equal(passwords.verifications - before, 5, 'an unregistered address: the same (the dummy hash), no enumeration')
  t.same(tally(answers), { wrong: 5, tooMany: 195 })
})

t.test('POST /auth/confirm/resend: 3 an hour per account', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const resend = (token: string) => app.inject({ method: 'POST', url: '/api/v1/auth/confirm/resend', headers: { authorization: `Bearer ${token}` } })
  const { token } = await signedInUser(app)
  for (let i = 1; i <= 3; i++) t.equal((await resend(token)).statusCode, 200, `resend ${i}`)
  limited(t, await resend(token), 'the fourth within the hour')
  const other = await signedInUser(app)
  t.equal((await resend(other.token)).statusCode, 200, 'another account has its own budget')
})

t.test('failed authentication counts per address: past the budget a would-be 401 is a 429', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_AUTH_FAILURES_IP: '3' })
  const { token } = await signedInUser(app)
  const a = '2001:db8:5:6::1'
  for (let i = 1; i <= 3; i++) t.has((await infoFrom(app, a)).json(), DENIED, `bad Bearer token ${i}: 401`)
  limited(t, await infoFrom(app, a), 'a fourth bad token')
  limited(t, await infoFrom(app, '2001:db8:5:6:ffff::9'), 'from elsewhere in the same IPv6 /64')
  limited(t, await app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', remoteAddress: a }), 'a refresh without a session')
  limited(t, await app.inject({ url: `/api/v1/sse/${randomUUID()}`, remoteAddress: a }), 'an SSE stream without credentials')
  limited(t, await app.inject({ url: '/api/v1/auth/info', remoteAddress: a, headers: { authorization: 'Bearer pir_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' } }), 'an API key')
  t.equal((await infoFrom(app, a, token)).statusCode, 200, 'a request that authenticates is not refused')
  t.has((await infoFrom(app, '2001:db8:5:7::1')).json(), DENIED, 'the next /64 is another client')
  t.has((await infoFrom(app, '192.0.2.9')).json(), DENIED, 'and so is an IPv4 address')

  const lines = logLines(app, '"rate limit refused"').map((l) => JSON.parse(l) as Record<string, unknown>)
  t.equal(lines.length, 5, 'each refusal is a rate limit refused line')
  t.match(lines[0], { event: 'rate limit refused', limiter: 'auth-failures', keyKind: 'ip', route: '/api/v1/auth/info', method: 'GET' })
  t.notOk(lines.some((l) => JSON.stringify(l).includes('2001:db8:5')), 'the line never holds the address counted (the request line does)')
})

t.test('a spent budget refuses before the credential is looked up or the handler runs', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_AUTH_FAILURES_IP: '2' })
  const person = await signedInUser(app)
  const held = await issueKey(app, person.auth)
  const unheld = await issueKey(app, person.auth)
  const spender = '198.51.100.7'
  // the view holds the key once it was used, from anywhere
  t.equal((await app.inject({ url: '/api/v1/report', remoteAddress: '192.0.2.1', headers: held.auth })).statusCode, 200, 'a key in use')
  for (let i = 1; i <= 2; i++) t.equal((await infoFrom(app, spender)).statusCode, 401, `failure ${i}`)

  // a session cookie is read from the database, and so is a key the view does not hold: refused first
  const refresh = await app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', remoteAddress: spender, headers: { cookie: person.cookie } })
  limited(t, refresh, 'a refresh with a live session cookie')
  t.equal(refresh.headers['set-cookie'], undefined, 'no cookie: the handler did not run')
  limited(t, await app.inject({ url: '/api/v1/report', remoteAddress: spender, headers: unheld.auth }), 'a good API key the view does not hold')
  const keys = (await app.inject({ url: '/api/v1/auth/api-keys', headers: person.auth })).json().items as Array<{ id: string, lastUsedAt: string | null }>
  t.equal(keys.find((k) => k.id === unheld.id)?.lastUsedAt, null, 'the key was never looked up (a lookup marks it used)')
  limited(t, await app.inject({ method: 'POST', url: '/api/v1/auth/signout', remoteAddress: spender, headers: { cookie: person.cookie } }), 'a cookie on a Bearer route')

  // what is checked in memory still passes
  t.equal((await app.inject({ url: '/api/v1/report', remoteAddress: spender, headers: held.auth })).statusCode, 200, 'a key the view holds')
  t.equal((await infoFrom(app, spender, person.token)).statusCode, 200, 'a valid JWT')
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/auth/signin', remoteAddress: spender, payload: { email: person.email, password: person.password } })).statusCode, 200,
    'a public route (sign-in has limits of its own)')
  // the session is untouched: its cookie still refreshes from another address
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', remoteAddress: '192.0.2.2', headers: { cookie: person.cookie } })).json().status, 'success')
})

t.test('per-IP keys: IPv6 grouped by /64, IPv4-mapped IPv6 as IPv4', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_SIGNIN_IP: '2' })
  t.same((await signinFrom(app, '2001:db8:7:8::1', uniqueEmail())).json(), WRONG_CREDENTIALS)
  t.same((await signinFrom(app, '2001:db8:7:8:aaaa:bbbb:cccc:dddd', uniqueEmail())).json(), WRONG_CREDENTIALS)
  limited(t, await signinFrom(app, '2001:db8:7:8::ffff', uniqueEmail()), 'a third address of the same /64')
  t.same((await signinFrom(app, '2001:db8:7:9::1', uniqueEmail())).json(), WRONG_CREDENTIALS, 'the next /64 has its own budget')

  t.same((await signinFrom(app, '::ffff:192.0.2.77', uniqueEmail())).json(), WRONG_CREDENTIALS)
  t.same((await signinFrom(app, '192.0.2.77', uniqueEmail())).json(), WRONG_CREDENTIALS)
  limited(t, await signinFrom(app, '::ffff:192.0.2.77', uniqueEmail()), 'one IPv4 client, mapped or not')
})

