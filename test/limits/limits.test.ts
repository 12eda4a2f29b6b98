// Rate limits and the per-account backoff: each limit answers 429 GeneralError with
// Retry-After; the client IP is the socket address unless the peer is in TRUST_PROXY, so a spoofed
// X-Forwarded-For buys no fresh budget; REDIS_URL shares the counters between instances.
import t, { type Test } from '../tap.ts'
import { randomInt } from 'node:crypto'
import { Redis } from 'ioredis'
import type { LightMyRequestResponse } from 'fastify'
import { build, freshDatabase, GOOD_PASSWORD, registeredUser, signedInUser, uniqueEmail } from '../helper.ts'
import { FAST_ARGON2, refresh, signin, WRONG_CREDENTIALS } from '../accounts/support.ts'

const TOO_MANY = { code: 429, message: 'too many requests' }
const REDIS_URL = 'redis://127.0.0.1:6379'

function limited (t: Test, res: LightMyRequestResponse, what: string) {
  t.equal(res.statusCode, 429, `${what}: 429`)
  t.has(res.json(), TOO_MANY, `${what}: GeneralError`)
  t.match(res.headers['retry-after'], /^[1-9]\d*$/, `${what}: Retry-After in seconds`)
}

/** a random address in 10/8, so counters kept in a shared Redis never meet another run's */
const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`

t.test('sign-in per IP: a spoofed X-Forwarded-For from an untrusted peer does not escape the limit', async (t) => {
  const database = await freshDatabase(t)
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_SIGNIN_IP: '3' }, { database })
  for (let i = 1; i <= 3; i++) {
    const res = await signin(app, { email: uniqueEmail(), password: 'wrong password' }, { 'x-forwarded-for': `203.0.113.${i}` })
    t.same(res.json(), WRONG_CREDENTIALS, `attempt ${i} is answered`)
  }
  limited(t, await signin(app, { email: uniqueEmail() }, { 'x-forwarded-for': '203.0.113.99' }), 'a fourth with yet another X-Forwarded-For')
  limited(t, await signin(app, { email: uniqueEmail() }, { 'x-forwarded-for': '203.0.113.100, 198.51.100.7', 'x-real-ip': '198.51.100.8' }), 'a forged chain')
  const elsewhere = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', remoteAddress: '192.0.2.50', payload: { email: uniqueEmail(), password: 'wrong password' } })
  t.same(elsewhere.json(), WRONG_CREDENTIALS, 'another socket address has a budget of its own')

  // Behind a trusted proxy the client is the address the proxy reports: each has its own budget.
  const proxied = await build(t, { ...FAST_ARGON2, RATE_LIMIT_SIGNIN_IP: '1', TRUST_PROXY: '10.9.9.9' }, { database })
  const via = (client: string) => proxied.inject({
    method: 'POST', url: '/api/v1/auth/signin', remoteAddress: '10.9.9.9', headers: { 'x-forwarded-for': client }, payload: { email: uniqueEmail(), password: 'wrong password' }
  })
  t.same((await via('198.51.100.1')).json(), WRONG_CREDENTIALS, 'client 1 through the trusted proxy')
  t.same((await via('198.51.100.2')).json(), WRONG_CREDENTIALS, 'client 2 through the trusted proxy')
  limited(t, await via('198.51.100.1'), 'client 1 again')
})

t.test('sign-in per e-mail, sign-up per IP, refresh per session, everything else per user or IP', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_SIGNIN_EMAIL: '2', RATE_LIMIT_SIGNUP_IP: '3', RATE_LIMIT_REFRESH: '2' })

  // sign-up: 3 per IP (the limit is checked before the body, so even refused forms count)
  const ip = '192.0.2.10'
  const up = (email: string, remoteAddress = ip) => app.inject({ method: 'POST', url: '/api/v1/auth/signup', remoteAddress, payload: { email, password: GOOD_PASSWORD, token: 'x' } })
  const email = uniqueEmail()
  t.same((await up(email)).json(), { status: 'success' })
  t.same((await up(uniqueEmail())).json(), { status: 'success' })
  t.same((await up('not-an-address')).json().status, 'error')
  limited(t, await up(uniqueEmail()), 'a fourth sign-up from one IP')
  t.same((await up(uniqueEmail(), '192.0.2.11')).json(), { status: 'success' }, 'another IP signs up')

  // sign-in: 2 per e-mail, whatever the address and however the e-mail is written
  const from = (remoteAddress: string, address: string, password = GOOD_PASSWORD) =>
    app.inject({ method: 'POST', url: '/api/v1/auth/signin', remoteAddress, payload: { email: address, password } })
  t.same((await from('192.0.2.20', email)).json(), { status: 'success' })
  t.same((await from('192.0.2.21', email, 'wrong password')).json(), WRONG_CREDENTIALS)
  limited(t, await from('192.0.2.22', `  ${email.toUpperCase()} `), 'a third for the same e-mail, from a third IP, in capitals')
  const other = uniqueEmail()
  t.same((await from('192.0.2.22', other, 'wrong password')).json(), WRONG_CREDENTIALS, 'another e-mail is unaffected')

  // refresh: 2 per session
  const second = await registeredUser(app, { email: uniqueEmail() })
  const a = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', remoteAddress: '192.0.2.30', payload: { email: second.email, password: GOOD_PASSWORD } })
  const b = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', remoteAddress: '192.0.2.31', payload: { email: second.email, password: GOOD_PASSWORD } })
  const cookieA = `sid=${a.cookies.find((c) => c.name === 'sid')!.value}`
  const cookieB = `sid=${b.cookies.find((c) => c.name === 'sid')!.value}`
  const first = await refresh(app, cookieA)
  t.equal(first.statusCode, 200)
  t.equal(first.headers['ratelimit-limit'], '2', "refresh's RateLimit-* headers count its own budget")
  t.equal(first.headers['ratelimit-remaining'], '1')
  t.equal((await refresh(app, cookieA)).statusCode, 200)
  limited(t, await refresh(app, cookieA), 'a third refresh of one session')
  t.equal((await refresh(app, cookieB)).statusCode, 200, 'another session of the same user is unaffected')
  // without a session cookie, the budget is the address's
  for (let i = 0; i < 2; i++) t.equal((await refresh(app, undefined, {})).statusCode, 401)
  limited(t, await refresh(app, undefined, {}), 'a third refresh without a session from one address')
})

t.test('refresh has its own budget in place of the global one', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_GLOBAL: '3', RATE_LIMIT_REFRESH: '5' })
  const { cookie } = await signedInUser(app)
  for (let i = 1; i <= 5; i++) t.equal((await refresh(app, cookie)).statusCode, 200, `refresh ${i} of 5, past the global 3`)
  limited(t, await refresh(app, cookie), 'the sixth')
})

t.test('the global limit: per user when signed in, else per IP', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_GLOBAL: '3' })
  const { token } = await signedInUser(app)
  const ip = '192.0.2.40'
  const asUser = (remoteAddress: string) => app.inject({ url: '/api/v1/auth/info', remoteAddress, headers: { authorization: `Bearer ${token}` } })
  const anonymous = () => app.inject({ method: 'POST', url: '/api/v1/auth/confirm/unknown-link', remoteAddress: ip })
  t.equal((await asUser(ip)).statusCode, 200)
  t.equal((await asUser('192.0.2.41')).statusCode, 200)
  t.equal((await asUser('192.0.2.42')).statusCode, 200)
  limited(t, await asUser('192.0.2.43'), 'the user, from any address')
  for (let i = 0; i < 3; i++) t.equal((await anonymous()).statusCode, 404, 'anonymous requests from the same IP count on their own')
  limited(t, await anonymous(), 'the IP')
  t.equal((await app.inject({ url: '/api/v1/health', remoteAddress: ip })).statusCode, 200, 'health is never limited')
})

t.test('per-account backoff: 1, 2, 4 … 300 s after the fifth failure, for unknown e-mails too', async (t) => {
  let clock = Date.parse('2031-03-01T10:00:00Z')
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_SIGNIN_EMAIL: '1000', RATE_LIMIT_SIGNIN_IP: '1000' }, { now: () => clock })
  const { email } = await registeredUser(app)
  const wrong = () => signin(app, { email, password: 'wrong password' })

  for (let i = 1; i <= 5; i++) t.same((await wrong()).json(), WRONG_CREDENTIALS, `failure ${i} is answered`)
  let res = await signin(app, { email })
  limited(t, res, 'after the fifth failure, even the right password waits')
  t.equal(res.headers['retry-after'], '1', '1 s')
  clock += 1000
  t.same((await wrong()).json(), WRONG_CREDENTIALS, 'the sixth failure, once the second has passed')
  res = await wrong()
  limited(t, res, 'locked again')
  t.equal(res.headers['retry-after'], '2', '2 s')
  clock += 2000
  await wrong()
  t.equal((await wrong()).headers['retry-after'], '4', '4 s after the seventh')

  const waits: number[] = []
  for (let i = 0; i < 8; i++) {
    clock += 300_000
    await wrong()
    waits.push(Number((await wrong()).headers['retry-after']))
  }
  t.same(waits, [8, 16, 32, 64, 128, 256, 300, 300], 'doubling up to 300 s')

  clock += 300_000
  t.same((await signin(app, { email })).json(), { status: 'success' }, 'the right password once the wait is over')
  t.same((await wrong()).json(), WRONG_CREDENTIALS, 'and a success starts the count again')
  t.same((await signin(app, { email })).json(), { status: 'success' })

  const unknown = uniqueEmail('nobody')
  for (let i = 1; i <= 5; i++) await signin(app, { email: unknown, password: 'wrong password' })
  limited(t, await signin(app, { email: unknown }), 'an unregistered address backs off the same way (no enumeration)')
})

// Redis is optional: `npm test` on a machine without it skips this one test.
const probe = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null })
probe.on('error', () => {})
const redisUp = await probe.connect().then(() => true, () => false)
t.teardown(() => probe.disconnect())

t.test('REDIS_URL: the counters are shared by every instance', { skip: redisUp ? false : `no Redis at ${REDIS_URL}` }, async (t) => {
  const database = await freshDatabase(t)
  const env = { ...FAST_ARGON2, RATE_LIMIT_SIGNUP_IP: '3' }
  const a = await build(t, { ...env, REDIS_URL }, { database })
  const b = await build(t, { ...env, REDIS_URL }, { database })
  const ip = randomIp()
  const up = (app: typeof a) => app.inject({ method: 'POST', url: '/api/v1/auth/signup', remoteAddress: ip, payload: { email: uniqueEmail(), password: GOOD_PASSWORD, token: 'x' } })
  t.same((await up(a)).json(), { status: 'success' }, 'instance A')
  t.same((await up(b)).json(), { status: 'success' }, 'instance B')
  t.same((await up(a)).json(), { status: 'success' }, 'instance A')
  limited(t, await up(b), 'the fourth, on B, counts the three before it on A and B')
  const keys = await probe.keys(`pir-rl:*signup-ip:${ip}`)
  t.equal(keys.length, 1, 'the counter lives in Redis')
  t.equal(await probe.get(keys[0]), '4')

  // without Redis each instance counts alone
  const c = await build(t, env, { database })
  const d = await build(t, env, { database })
  for (const app of [c, d, c, d]) t.same((await up(app)).json(), { status: 'success' }, 'in-memory counters are per instance')
})

