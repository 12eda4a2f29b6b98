// Without Redis, each limiter counts in process: a flood of fresh addresses cannot reset a victim's
// count (src/services/limits/window-counters.ts), even when it overfills the store.
import t from '../tap.ts'
import { build } from '../helper.ts'
import { FAST_ARGON2 } from '../accounts/support.ts'
import { infoFrom, ipv4, limited } from './support.ts'

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
