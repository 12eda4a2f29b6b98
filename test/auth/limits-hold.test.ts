// Limits that hold: without Redis (unreachable, or going away mid-run) every named limit keeps
// counting in process; the per-account backoff lets one argon2 verification through per window
// however many guesses arrive at once; resend has a budget per account; failed authentications have
// one per address; per-IP keys group IPv6 by /64; a flood of addresses cannot reset a victim's count.
import t, { type Test } from 'tap'
import { randomInt, randomUUID } from 'node:crypto'
import { createServer, connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { Redis } from 'ioredis'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, GOOD_PASSWORD, logCapture, uniqueEmail } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { FAST_ARGON2, registered, signedIn, WRONG_CREDENTIALS } from './support.ts'

const TOO_MANY = { code: 429, message: 'too many requests' }
const DENIED = { code: 401, message: 'access denied' }
const UNREACHABLE_REDIS = 'redis://127.0.0.1:1'
const REDIS_PORT = 6379
/** high enough that only the limit under test answers 429 */
const ROOMY = { RATE_LIMIT_SIGNIN_IP: '100000', RATE_LIMIT_SIGNIN_EMAIL: '100000', RATE_LIMIT_GLOBAL: '100000' }

function limited (t: Test, res: LightMyRequestResponse, what: string) {
  t.equal(res.statusCode, 429, `${what}: 429`)
  t.same(res.json(), TOO_MANY, `${what}: GeneralError`)
  t.match(res.headers['retry-after'], /^[1-9]\d*$/, `${what}: Retry-After in seconds`)
}

const signinFrom = (app: FastifyInstance, remoteAddress: string, email: string, password = 'wrong password') =>
  app.inject({ method: 'POST', url: '/api/v1/auth/signin', remoteAddress, payload: { email, password } })
const infoFrom = (app: FastifyInstance, remoteAddress: string, token = 'not-a-jwt') =>
  app.inject({ url: '/api/v1/auth/info', remoteAddress, headers: { authorization: `Bearer ${token}` } })
/** the nth address of 10/8 */
const ipv4 = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
const lines = (app: FastifyInstance, text: string) => (logCapture(app)?.lines ?? []).filter((l) => l.includes(text))

function tally (answers: LightMyRequestResponse[]) {
  const wrong = answers.filter((r) => r.statusCode === 200 && r.json().status === 'error').length
  const tooMany = answers.filter((r) => r.statusCode === 429).length
  return { wrong, tooMany }
}

t.test('Redis unreachable: 50 wrong passwords from one address, and for one e-mail, meet their 429s', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, REDIS_URL: UNREACHABLE_REDIS, METRICS_PORT: '0', RATE_LIMIT_SIGNIN_EMAIL: '3' })
  const passwords = app.services.passwords

  const ip = '198.51.100.7'
  const fromOne: LightMyRequestResponse[] = []
  for (let i = 0; i < 50; i++) fromOne.push(await signinFrom(app, ip, uniqueEmail()))
  t.same(tally(fromOne), { wrong: 30, tooMany: 20 }, 'RATE_LIMIT_SIGNIN_IP (30 a minute) still holds')
  limited(t, fromOne[49], 'the fiftieth from one address')

  const { email } = await registered(app)
  const before = passwords.verifications
  const forOne: LightMyRequestResponse[] = []
  for (let i = 0; i < 50; i++) forOne.push(await signinFrom(app, ipv4(1000 + i), email))
  t.same(tally(forOne), { wrong: 3, tooMany: 47 }, 'RATE_LIMIT_SIGNIN_EMAIL (3 here) still holds, from 50 addresses')
  t.equal(passwords.verifications - before, 3, 'argon2 ran for the three answered only')
  limited(t, forOne[49], 'the fiftieth for one e-mail')

  t.equal(lines(app, 'redis does not answer').length, 1, 'the outage is logged once, not per request')
  const scrape = await app.metrics!.scrape()
  t.match(scrape, /^pir_rate_limit_redis_down 1$/m, 'and shown in the metrics')
  t.match(scrape, /^pir_rate_limit_redis_outages_total 1$/m)
  t.match(scrape, /^pir_argon2_verifications_total \d+$/m)
})

// Redis is optional: `npm test` on a machine without it skips the test that needs it.
const probe = new Redis(REDIS_PORT, '127.0.0.1', { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null })
probe.on('error', () => {})
const redisUp = await probe.connect().then(() => true, () => false)
t.teardown(() => probe.disconnect())

/** a TCP proxy to the local Redis that the test can cut and restore */
async function redisProxy (t: Test) {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(REDIS_PORT, '127.0.0.1')
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {})
    }
    client.pipe(upstream).pipe(client)
  })
  const listen = (port: number) => new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
  const port = await listen(0)
  const cut = () => new Promise<void>((resolve) => {
    server.close(() => resolve())
    for (const s of sockets) s.destroy()
  })
  t.teardown(() => cut())
  return { url: `redis://127.0.0.1:${port}`, cut, restore: () => listen(port) }
}

t.test('Redis goes away mid-run: the limits go on counting in process; it is logged and measured once', { skip: redisUp ? false : 'no Redis at 127.0.0.1:6379' }, async (t) => {
  const proxy = await redisProxy(t)
  const app = await build(t, { ...FAST_ARGON2, REDIS_URL: proxy.url, METRICS_PORT: '0', RATE_LIMIT_SIGNIN_IP: '4' })
  const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`
  const down = async () => /^pir_rate_limit_redis_down 1$/m.test(await app.metrics!.scrape())

  for (let i = 0; i < 2; i++) t.same((await signinFrom(app, ip, uniqueEmail())).json(), WRONG_CREDENTIALS, `attempt ${i + 1}, counted in Redis`)
  t.equal(await probe.get(`pir-rl:signin-ip:${ip}`), '2', 'the counter is in Redis')
  t.notOk(await down(), 'Redis answers')

  await proxy.cut()
  await until(down, { what: 'the outage to be seen' })
  const answers: LightMyRequestResponse[] = []
  for (let i = 0; i < 10; i++) answers.push(await signinFrom(app, ip, uniqueEmail()))
  t.same(tally(answers), { wrong: 4, tooMany: 6 }, 'the limit holds in process (its count starts there afresh)')
  limited(t, answers[9], 'the tenth after the cut')
  t.equal(lines(app, 'redis does not answer').length, 1, 'one log line for the outage')

  await proxy.restore()
  await until(async () => !await down(), { timeoutMs: 10_000, what: 'Redis to answer again' })
  t.equal(lines(app, 'redis answers again').length, 1, 'and one when it is back')
  t.match(await app.metrics!.scrape(), /^pir_rate_limit_redis_outages_total 1$/m)
  for (let i = 3; i <= 4; i++) t.same((await signinFrom(app, ip, uniqueEmail())).json(), WRONG_CREDENTIALS, `attempt ${i} in Redis's count`)
  limited(t, await signinFrom(app, ip, uniqueEmail()), 'back on Redis, whose count goes on from where it was')
})

t.test('the backoff: 200 parallel wrong passwords reach argon2 once per window (counted, not answered)', async (t) => {
  let clock = Date.parse('2031-06-01T10:00:00Z')
  const app = await build(t, { ...FAST_ARGON2, ...ROOMY }, { now: () => clock })
  const passwords = app.services.passwords
  const { email } = await registered(app)
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
  const { token } = await signedIn(app, (await registered(app)).email)
  for (let i = 1; i <= 3; i++) t.equal((await resend(token)).statusCode, 200, `resend ${i}`)
  limited(t, await resend(token), 'the fourth within the hour')
  const other = await signedIn(app, (await registered(app)).email)
  t.equal((await resend(other.token)).statusCode, 200, 'another account has its own budget')
})

t.test('failed authentication counts per address: past the budget a would-be 401 is a 429', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, RATE_LIMIT_AUTH_FAILURES_IP: '3' })
  const { token } = await signedIn(app, (await registered(app)).email)
  const a = '2001:db8:5:6::1'
  for (let i = 1; i <= 3; i++) t.same((await infoFrom(app, a)).json(), DENIED, `bad Bearer token ${i}: 401`)
  limited(t, await infoFrom(app, a), 'a fourth bad token')
  limited(t, await infoFrom(app, '2001:db8:5:6:ffff::9'), 'from elsewhere in the same IPv6 /64')
  limited(t, await app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', remoteAddress: a }), 'a refresh without a session')
  limited(t, await app.inject({ url: `/api/v1/sse/${randomUUID()}`, remoteAddress: a }), 'an SSE stream without credentials')
  t.equal((await infoFrom(app, a, token)).statusCode, 200, 'a request that authenticates is not refused')
  t.same((await infoFrom(app, '2001:db8:5:7::1')).json(), DENIED, 'the next /64 is another client')
  t.same((await infoFrom(app, '192.0.2.9')).json(), DENIED, 'and so is an IPv4 address')
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

t.test('without Redis, 10,000 fresh addresses do not reset a victim\'s count', async (t) => {
  // the smallest store the config allows, so that the flood overfills it
  const app = await build(t, { ...FAST_ARGON2, LOG_LEVEL: 'warn', RATE_LIMIT_AUTH_FAILURES_IP: '3', RATE_LIMIT_LOCAL_KEYS: '1000' })
  const victim = '192.0.2.200'
  for (let i = 0; i < 2; i++) t.equal((await infoFrom(app, victim)).statusCode, 401, `the victim's failure ${i + 1}`)
  const flood = { 401: 0, 429: 0 } as Record<number, number>
  for (let i = 1; i <= 10_000; i++) flood[(await infoFrom(app, ipv4(i))).statusCode]++
  t.same(flood, { 401: 999 + 3, 429: 9001 - 3 }, '999 found a counter of their own; past the store\'s room, the other 9,001 share one and are refused together')
  t.equal((await infoFrom(app, victim)).statusCode, 401, 'the victim\'s third failure is still its third')
  limited(t, await infoFrom(app, victim), 'and its fourth meets the limit')
})
