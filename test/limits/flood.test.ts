// Without Redis, each limiter counts in process: past RATE_LIMIT_LOCAL_KEYS exact counters, a flood of
// fresh keys is counted in a sketch of fixed size (src/services/limits/window-counters.ts), where the
// flooding keys are refused and nobody else is. The 100,000-key floods drive the store itself
// (test/limits/store.test.ts); here a few thousand requests overfill the smallest store the config
// allows, through the routes.
import t from '../tap.ts'
import { build, signedInUser, registeredUser } from '../helper.ts'
import { FAST_ARGON2 } from '../accounts/support.ts'
import { infoFrom, ipv4, limited, signinFrom, tally } from './support.ts'

const SMALLEST_STORE = { RATE_LIMIT_LOCAL_KEYS: '1000' }
const CLIENT_CONFIG = '/api/v1/client-config'
/** past the 1,000 exact counters */
const SPREAD = 1100
/** the address ::1 of the /64 number `subnet` of the /48 number `site` under 2001:db8::/32 */
const v6 = (site: number, subnet: number) => `2001:db8:${site.toString(16)}:${subnet.toString(16)}::1`
const statuses = (codes: number[]) => codes.reduce<Record<number, number>>((all, c) => ({ ...all, [c]: (all[c] ?? 0) + 1 }), {})

t.test('IPv6 floods: the flooding /48 and the flooding /64 are refused, a fresh IPv4 client and a signed-in user are not', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, ...SMALLEST_STORE, LOG_LEVEL: 'warn', RATE_LIMIT_AUTH_FAILURES_IP: '3', RATE_LIMIT_GLOBAL: '5', METRICS_PORT: '0' })
  const user = await signedInUser(app)
  const config = (remoteAddress: string) => app.inject({ url: CLIENT_CONFIG, remoteAddress })

  // 1,000 /64s of one /48 failing to authenticate: past 64 of them the /48 is one client, over its budget
  const site: number[] = []
  for (let i = 0; i < 1000; i++) site.push((await infoFrom(app, v6(0xbad, i))).statusCode)
  t.ok(site.slice(-800).every((c) => c === 429), 'the flooding /48 is refused, whatever /64 it sends from')
  limited(t, await infoFrom(app, v6(0xbad, 0xffff)), 'a /64 of it not seen before')
  t.match(await app.metrics!.scrape(), /^pir_rate_limit_ipv6_floods_total 1$/m, 'the flood is counted')

  // 1,100 anonymous clients, each a /64 of a /48 of its own: more than the global budget's exact counters
  const spread: number[] = []
  for (let i = 0; i < SPREAD; i++) spread.push((await config(v6(0x1000 + i, 1))).statusCode)
  t.same(statuses(spread), { 200: SPREAD }, 'those that found no exact counter were not refused together')
  t.match(await app.metrics!.scrape(), /^pir_rate_limit_overflow_total [1-9]\d*$/m, 'they were counted in the sketch')

  // a client counted in the sketch is refused at its limit like any other
  const last = v6(0x1000 + SPREAD - 1, 1)
  for (let n = 2; n <= 5; n++) t.equal((await config(last)).statusCode, 200, `a sketch-counted client's request ${n}`)
  limited(t, await config(last), 'and its sixth')

  t.equal((await config('192.0.2.10')).statusCode, 200, 'a fresh IPv4 client\'s first request succeeds')
  t.equal((await infoFrom(app, '192.0.2.10')).statusCode, 401, 'and its first failure is its first, not a 429')
  t.equal((await config(v6(0x7777, 1))).statusCode, 200, 'so does a fresh IPv6 client\'s in another /48')
  const info = await app.inject({ url: '/api/v1/auth/info', headers: user.auth, remoteAddress: '192.0.2.11' })
  t.equal(info.statusCode, 200, 'a signed-in user\'s first request succeeds: its id is a new key of the full global store')
  const fromFlood = await app.inject({ url: '/api/v1/auth/info', headers: user.auth, remoteAddress: v6(0xbad, 3) })
  t.equal(fromFlood.statusCode, 200, 'even from inside the flooding /48: a request that authenticates is never counted as a failure')
})

t.test('invented e-mail addresses flood sign-in and recovery: the flooding addresses are refused, a real user is not', async (t) => {
  const app = await build(t, {
    ...FAST_ARGON2,
    ...SMALLEST_STORE,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SIGNIN_IP: '100000',
    RATE_LIMIT_RECOVERY_IP: '100000',
    RATE_LIMIT_GLOBAL: '100000',
    RATE_LIMIT_SIGNIN_EMAIL: '3',
    RATE_LIMIT_RECOVERY_EMAIL: '3'
  })
  const { email, password } = await registeredUser(app)
  const other = await signedInUser(app)
  const invented = (i: number) => `invented-${i}@example.com`
  const FLOOD = 1100 // past the 1,000 exact counters

  const signins = []
  for (let i = 0; i < FLOOD; i++) signins.push(await signinFrom(app, ipv4(i), invented(i)))
  t.same(tally(signins), { wrong: FLOOD, tooMany: 0 }, 'each invented address is answered once (wrong credentials), none refused for the others\' sake')
  const before = app.services.passwords.verifications
  for (let n = 2; n <= 3; n++) t.equal(tally([await signinFrom(app, ipv4(1), invented(FLOOD - 1))]).wrong, 1, `a sketch-counted address's attempt ${n}`)
  limited(t, await signinFrom(app, ipv4(1), invented(FLOOD - 1)), 'and its fourth is refused by the limit')
  t.equal(app.services.passwords.verifications - before, 2, 'before argon2')
  const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', remoteAddress: '192.0.2.20', payload: { email, password } })
  t.equal(signin.json().status, 'success', 'the real user\'s sign-in succeeds')
  const info = await app.inject({ url: '/api/v1/auth/info', headers: other.auth, remoteAddress: '192.0.2.22' })
  t.equal(info.statusCode, 200, 'a signed-in user\'s request succeeds (the flood filled the global budget\'s exact counters too)')

  const recoveries = []
  for (let i = 0; i < FLOOD; i++) {
    recoveries.push((await app.inject({ method: 'POST', url: '/api/v1/auth/recovery', remoteAddress: ipv4(i), payload: { email: invented(i) } })).statusCode)
  }
  t.same(statuses(recoveries), { 200: FLOOD }, 'each invented address is answered once')
  const again = []
  for (let n = 2; n <= 4; n++) again.push(await app.inject({ method: 'POST', url: '/api/v1/auth/recovery', remoteAddress: ipv4(2), payload: { email: invented(FLOOD - 2) } }))
  t.same(again.map((r) => r.statusCode), [200, 200, 429], 'a sketch-counted address is refused past its limit')
  const mine = await app.inject({ method: 'POST', url: '/api/v1/auth/recovery', remoteAddress: '192.0.2.21', payload: { email } })
  t.same([mine.statusCode, mine.json().status], [200, 'success'], 'the real user\'s recovery request is answered')
})
