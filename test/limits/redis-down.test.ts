// Redis away: with an unreachable REDIS_URL, or a Redis that goes away mid-run, every named limit
// keeps counting in process; the outage is logged once and shown in the metrics.
import t from '../tap.ts'
import { randomInt } from 'node:crypto'
import { Redis } from 'ioredis'
import type { LightMyRequestResponse } from 'fastify'
import { build, registeredUser, uniqueEmail } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { redisProxy, REDIS_PORT } from '../peers/redis-proxy.ts'
import { FAST_ARGON2, WRONG_CREDENTIALS } from '../accounts/support.ts'
import { ipv4, limited, logLines, signinFrom, tally } from './support.ts'

const UNREACHABLE_REDIS = 'redis://127.0.0.1:1'

t.test('Redis unreachable: 50 wrong passwords from one address, and for one e-mail, meet their 429s', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, REDIS_URL: UNREACHABLE_REDIS, METRICS_PORT: '0', RATE_LIMIT_SIGNIN_EMAIL: '3' })
  const passwords = app.services.passwords

  const ip = '198.51.100.7'
  const fromOne: LightMyRequestResponse[] = []
  for (let i = 0; i < 50; i++) fromOne.push(await signinFrom(app, ip, uniqueEmail()))
  t.same(tally(fromOne), { wrong: 30, tooMany: 20 }, 'RATE_LIMIT_SIGNIN_IP (30 a minute) still holds')
  limited(t, fromOne[49], 'the fiftieth from one address')

  const { email } = await registeredUser(app)
  const before = passwords.verifications
  const forOne: LightMyRequestResponse[] = []
  for (let i = 0; i < 50; i++) forOne.push(await signinFrom(app, ipv4(1000 + i), email))
  t.same(tally(forOne), { wrong: 3, tooMany: 47 }, 'RATE_LIMIT_SIGNIN_EMAIL (3 here) still holds, from 50 addresses')
  t.equal(passwords.verifications - before, 3, 'argon2 ran for the three answered only')
  limited(t, forOne[49], 'the fiftieth for one e-mail')

  t.equal(logLines(app, 'redis does not answer').length, 1, 'the outage is logged once, not per request')
  const scrape = await app.metrics!.scrape()
  t.match(scrape, /^pir_rate_limit_redis_down 1$/m, 'and shown in the metrics')
  t.match(scrape, /^pir_rate_limit_redis_outages_total 1$/m)
  t.match(scrape, /^pir_argon2_verifications_total \d+$/m)
})

// Redis is optional: `npm test` on a machine without it skips the test that needs it.
const probe = new Redis(REDIS_PORT, '127.0.0.1', { lazyConnect: true, connectTimeout: 5000, maxRetriesPerRequest: 0, retryStrategy: () => null })
probe.on('error', () => {})
const redisUp = await probe.connect().then(() => true, () => false)
t.teardown(() => probe.disconnect())

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
  t.equal(logLines(app, 'redis does not answer').length, 1, 'one log line for the outage')

  await proxy.restore()
  await until(async () => !await down(), { timeoutMs: 10_000, what: 'Redis to answer again' })
  t.equal(logLines(app, 'redis answers again').length, 1, 'and one when it is back')
  t.match(await app.metrics!.scrape(), /^pir_rate_limit_redis_outages_total 1$/m)
  for (let i = 3; i <= 4; i++) t.same((await signinFrom(app, ip, uniqueEmail())).json(), WRONG_CREDENTIALS, `attempt ${i} in Redis's count`)
  limited(t, await signinFrom(app, ip, uniqueEmail()), 'back on Redis, whose count goes on from where it was')
})

