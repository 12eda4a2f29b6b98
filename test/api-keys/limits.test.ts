// A key's own budget (src/plugins/rate-limit.ts, apiKeyLimit): RATE_LIMIT_API_KEY requests a minute
// per key, whatever its owner spends; every answer to a key's request carries RateLimit-Limit,
// RateLimit-Remaining and RateLimit-Reset of the key's budget, its 429 Retry-After too; a person's
// answers carry the same names for their own budget. A refused key (401) counts against the failed-authentication budget.
import t from '../tap.ts'
import { build, CHEAP_ARGON2, signedInUser } from '../helper.ts'
import { issueKey } from './support.ts'

const KEY_LIMIT = 3
const app = await build(t, { ...CHEAP_ARGON2, RATE_LIMIT_API_KEY: String(KEY_LIMIT), RATE_LIMIT_GLOBAL: '10', RATE_LIMIT_AUTH_FAILURES_IP: '3' })
const reports = (auth: Record<string, string>, remoteAddress?: string) => app.inject({ url: '/api/v1/report', headers: auth, remoteAddress })

t.test('a key\'s answers carry its budget; the 429 past it carries Retry-After; a person\'s carry their own budget', async (t) => {
  const owner = await signedInUser(app)
  const key = await issueKey(app, owner.auth)
  for (let i = 1; i <= KEY_LIMIT; i++) {
    const res = await reports(key.auth)
    t.equal(res.statusCode, 200, `request ${i}`)
    t.equal(res.headers['ratelimit-limit'], String(KEY_LIMIT))
    t.equal(res.headers['ratelimit-remaining'], String(KEY_LIMIT - i))
    t.match(res.headers['ratelimit-reset'], /^[1-9]\d*$/, 'seconds until the window resets')
    t.ok(Number(res.headers['ratelimit-reset']) <= 60)
    t.notOk(Object.keys(res.headers).some((h) => h.startsWith('x-ratelimit')), 'one header family: no X-RateLimit-*')
  }
  const over = await reports(key.auth)
  t.equal(over.statusCode, 429)
  t.has(over.json(), { code: 429, message: 'too many requests' })
  t.match(over.headers['retry-after'], /^[1-9]\d*$/)
  t.equal(over.headers['ratelimit-limit'], String(KEY_LIMIT))
  t.equal(over.headers['ratelimit-remaining'], '0')
  t.match(over.headers['ratelimit-reset'], /^[1-9]\d*$/)

  const person = await reports(owner.auth)
  t.equal(person.statusCode, 200, 'the owner is not limited by the key\'s requests')
  t.equal(person.headers['ratelimit-limit'], '10', 'a person\'s answer counts the owner\'s budget (RATE_LIMIT_GLOBAL), under the same names')
  // the owner spent POST /auth/api-keys and this request: the key's four counted nowhere of theirs
  t.equal(person.headers['ratelimit-remaining'], '8', 'the owner\'s budget holds only their own requests')

  const second = await issueKey(app, owner.auth, { name: 'another program' })
  const fresh = await reports(second.auth)
  t.equal(fresh.statusCode, 200, 'each key has a budget of its own')
  t.equal(fresh.headers['ratelimit-remaining'], String(KEY_LIMIT - 1))
})

t.test('a refused scope counts and carries the headers; the cookie\'s requests do not count the key', async (t) => {
  const owner = await signedInUser(app)
  const key = await issueKey(app, owner.auth, { scopes: ['profiles:read'] })
  const refused = await reports(key.auth)
  t.equal(refused.statusCode, 403)
  t.equal(refused.headers['ratelimit-remaining'], String(KEY_LIMIT - 1))
  const stream = await app.inject({ url: '/api/v1/sse/00000000-0000-4000-8000-000000000000', headers: { cookie: owner.cookie } })
  t.equal(stream.statusCode, 404)
  t.not(stream.headers['ratelimit-limit'], String(KEY_LIMIT), 'a cookie\'s answer does not count the key\'s budget')
})

t.test('refused keys count against the failed-authentication budget of their address', async (t) => {
  const wrong = { authorization: `Bearer pir_000000000000_${'A'.repeat(43)}` }
  const ip = '192.0.2.77'
  for (let i = 1; i <= 3; i++) t.equal((await reports(wrong, ip)).statusCode, 401, `guess ${i}`)
  const limited = await reports(wrong, ip)
  t.equal(limited.statusCode, 429)
  t.match(limited.headers['retry-after'], /^[1-9]\d*$/)
})
