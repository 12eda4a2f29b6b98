// The HTTP surface every route shares: Fastify's own errors in the GeneralError
// shape, the form-endpoint mapping, bad input never a 500, health (503 when the database does not
// answer), helmet headers, CORS only for configured origins, the HTTPS guard.
import t, { type Test } from '../tap.ts'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { build, freshDatabase, GOOD_PASSWORD, signedInUser, uniqueEmail } from '../helper.ts'
import { FAST_ARGON2, signin } from '../accounts/support.ts'
import { captureLogs } from './support.ts'

const MiB = 1024 * 1024
const NO_LIMITS = { RATE_LIMIT_SIGNIN_IP: '10000', RATE_LIMIT_SIGNUP_IP: '10000', RATE_LIMIT_SIGNIN_EMAIL: '10000' }
const general = (code: number, message: string | RegExp) => ({ code, message })

let app: FastifyInstance
t.before(async () => {
  app = await build(t, { ...FAST_ARGON2, ...NO_LIMITS, PUBLIC_URL: 'https://pir.example.test', CORS_ORIGINS: 'https://partner.example.test' })
})

async function answer (t: Test, opts: InjectOptions, status: number, body: unknown, what: string) {
  const res = await app.inject(opts)
  t.equal(res.statusCode, status, `${what}: HTTP ${status}`)
  t.match(res.headers['content-type'], /^application\/json/, `${what}: JSON`)
  t.match(res.json(), body, what)
  return res
}

t.test('health answers {status, db}', async (t) => {
  const res = await app.inject({ url: '/api/v1/health' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok', db: 'ok' })
})

t.test("Fastify's own errors leave in the GeneralError shape", async (t) => {
  await answer(t, { url: '/api/v1/no-such-route' }, 404, general(404, 'not found'), 'unknown route')
  await answer(t, { method: 'POST', url: '/api/v1/auth/no-such-route', payload: {} }, 404, general(404, 'not found'), 'unknown POST route')
  await answer(t, { method: 'GET', url: '/api/v1/auth/signin' }, 404, general(404, 'not found'), 'a known path with the wrong method')
  await answer(t, { url: '/no-such-page' }, 404, general(404, 'not found'), 'outside /api/v1')

  for (const url of ['/api/v1/auth/signin', '/api/v1/auth/signup', '/api/v1/auth/confirm/abc']) {
    await answer(t, { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{"email": "a@b.co",' }, 400,
      general(400, 'body is not valid JSON'), `${url}: bad JSON`)
    await answer(t, { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '' }, 400,
      general(400, 'body is empty'), `${url}: empty JSON body`)
    await answer(t, { method: 'POST', url, payload: { email: 'a@b.co', password: 'x'.repeat(2 * MiB) } }, 413,
      general(413, 'body too large'), `${url}: a 2 MiB body`)
    await answer(t, { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: `"${'x'.repeat(MiB - 1)}"` }, 413,
      general(413, 'body too large'), `${url}: 1 MiB + 1 byte`)
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      await answer(t, { method: 'POST', url, headers: { 'content-type': type }, payload: 'email=a@b.co&password=secret' }, 415,
        general(415, 'unsupported media type'), `${url}: ${type}`)
    }
  }
  await answer(t, { method: 'POST', url: '/api/v1/auth/signin', payload: { email: 'a@b.co', password: 'x'.repeat(MiB - 100) } }, 200,
    { status: 'error', fieldError: { field: 'password' } }, 'just under 1 MiB is read (and refused by the schema)')
  await answer(t, { method: 'POST', url: `/api/v1/auth/confirm/${'x'.repeat(101)}` }, 414, general(414, 'uri too long'), 'a path parameter over 100 characters')
  await answer(t, { method: 'POST', url: '/api/v1/auth/confirm/%E0%A4%A' }, 400, general(400, 'bad url'), 'a malformed URL')
})

t.test('form endpoints: a body that is JSON but fails the schema is HTTP 200 naming the first bad field', async (t) => {
  const email = uniqueEmail()
  const fe = (field: string, message?: string | RegExp) => ({ status: 'error', fieldError: { field, ...(message ? { message } : {}) } })
  const signinCases: Array<[string, unknown, unknown]> = [
    ['no body at all', undefined, fe('email', 'Enter a valid e-mail address')],
    ['an array', [], fe('email', 'Enter a valid e-mail address')],
    ['a number', 42, fe('email', 'Enter a valid e-mail address')],
    ['null', null, fe('email', 'Enter a valid e-mail address')],
    ['an empty object', {}, fe('email', 'Enter a valid e-mail address')],
    ['no password', { email }, fe('password', 'Enter a password')],
    ['no e-mail', { password: GOOD_PASSWORD }, fe('email', 'Enter a valid e-mail address')],
    ['not an e-mail', { email: 'not-an-address', password: GOOD_PASSWORD }, fe('email', 'Enter a valid e-mail address')],
    ['an e-mail of 255 characters', { email: `${'a'.repeat(243)}@example.com`, password: GOOD_PASSWORD }, fe('email', 'Enter a valid e-mail address')],
    ['an e-mail object', { email: { $ne: '' }, password: GOOD_PASSWORD }, fe('email', 'Enter a valid e-mail address')],
    ['a password object', { email, password: { $gt: '' } }, fe('password', 'Enter a password')],
    ['an empty password', { email, password: '' }, fe('password')],
    ['a password of 257 characters', { email, password: 'x'.repeat(257) }, fe('password', 'Password must be at most 256 characters')],
    ['a huge password', { email, password: 'x'.repeat(500_000) }, fe('password', 'Password must be at most 256 characters')],
    ['token not a boolean', { email, password: GOOD_PASSWORD, token: { a: 1 } }, fe('email', 'Invalid token')],
    ['remember not a boolean', { email, password: GOOD_PASSWORD, remember: [1, 2] }, fe('email', 'Invalid remember')]
  ]
  for (const [what, payload, body] of signinCases) {
    await answer(t, { method: 'POST', url: '/api/v1/auth/signin', ...(payload === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) }) },
      200, body, `sign-in, ${what}`)
  }
  const signupCases: Array<[string, Record<string, unknown>, unknown]> = [
    ['no CAPTCHA token', { email, password: GOOD_PASSWORD }, fe('email', 'CAPTCHA check failed, please try again')],
    ['an empty CAPTCHA token', { email, password: GOOD_PASSWORD, token: '' }, fe('email', 'CAPTCHA check failed, please try again')],
    ['a password of 7 characters', { email, password: 'abcdefg', token: 'x' }, fe('password', 'Password must be at least 8 characters')],
    ['a password of 257 characters', { email, password: 'y'.repeat(257), token: 'x' }, fe('password', 'Password must be at most 256 characters')],
    ['an empty promocode', { email, password: GOOD_PASSWORD, token: 'x', promocode: '' }, fe('promocode', 'Promo code is invalid, expired or used up to the limit')],
    ['a huge promocode', { email, password: GOOD_PASSWORD, token: 'x', promocode: 'P'.repeat(100_000) }, fe('promocode', 'Promo code is invalid, expired or used up to the limit')],
    ['a promocode object', { email, password: GOOD_PASSWORD, token: 'x', promocode: { code: 'x' } }, fe('promocode')],
    ['an e-mail of 255 characters', { email: `${'b'.repeat(243)}@example.com`, password: GOOD_PASSWORD, token: 'x' }, fe('email')]
  ]
  for (const [what, payload, body] of signupCases) {
    await answer(t, { method: 'POST', url: '/api/v1/auth/signup', payload }, 200, body, `sign-up, ${what}`)
  }
  t.same(await app.database.query('select count(*)::int as n from users where email = $1', [email]), [{ n: 0 }], 'none of them made an account')

  // acquisition_code is a machine-set marker, not a form field: over 256 characters is HTTP 400
  const long = await answer(t, { method: 'POST', url: '/api/v1/auth/signup', payload: { email, password: GOOD_PASSWORD, token: 'x', acquisition_code: 'a'.repeat(257) } },
    400, { code: 400 }, 'acquisition_code of 257 characters')
  t.match(long.json().message, /acquisition_code/, 'the message names acquisition_code')
  t.same(Object.keys(long.json()).sort(), ['code', 'message', 'reason'])
  await answer(t, { method: 'POST', url: '/api/v1/auth/signup', payload: { email, password: GOOD_PASSWORD, token: 'x', acquisition_code: 'a'.repeat(256) } },
    200, { status: 'success' }, 'acquisition_code of 256 characters')
  const stored = await app.database.query<{ acquisition_code: string }>('select acquisition_code from users where email = $1', [email])
  t.equal(stored[0].acquisition_code, 'a'.repeat(256), 'stored as given')
})

t.test('security headers (helmet, HSTS over HTTPS) on every answer; CORS only for CORS_ORIGINS', async (t) => {
  for (const url of ['/api/v1/health', '/api/v1/no-such-route']) {
    const res = await app.inject({ url })
    t.equal(res.headers['strict-transport-security'], undefined, `${url}: no HSTS over plain HTTP (RFC 6797 7.2)`)
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${url}: nosniff`)
    t.equal(res.headers['x-frame-options'], 'DENY', `${url}: frame options`)
    t.equal(res.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'", `${url}: an API answer may load and be framed by nothing`)
    t.equal(res.headers['cross-origin-resource-policy'], 'same-origin', `${url}: resource policy`)
    t.equal(res.headers['referrer-policy'], 'no-referrer', `${url}: referrer policy`)
    t.equal(res.headers['x-powered-by'], undefined)
    for (const documentOnly of ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options', 'x-xss-protection', 'x-permitted-cross-domain-policies']) {
      t.equal(res.headers[documentOnly], undefined, `${url}: no ${documentOnly} (a header for HTML documents)`)
    }
  }
  // the HTML documents (the dashboard, the docs UI and its assets) get helmet's document set
  for (const url of ['/', '/index.html', '/api/v1/docs/', '/api/v1/docs/static/swagger-initializer.js']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-security-policy'], /^default-src 'self';.*script-src 'self'/, `${url}: the page CSP`)
    t.equal(res.headers['x-frame-options'], 'SAMEORIGIN', `${url}: frame options`)
    t.equal(res.headers['cross-origin-opener-policy'], 'same-origin', `${url}: COOP`)
    t.equal(res.headers['strict-transport-security'], undefined, `${url}: no HSTS over plain HTTP`)
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${url}: nosniff`)
  }
  // over HTTPS (here: a trusted proxy's X-Forwarded-Proto; the TLS listener in server.test.ts) both sets carry HSTS
  const proxied = await build(t, { ...FAST_ARGON2, TRUST_PROXY: '10.0.0.1' }, { database: app.database })
  for (const url of ['/api/v1/health', '/api/v1/no-such-route', '/', '/api/v1/docs/']) {
    const res = await proxied.inject({ url, remoteAddress: '10.0.0.1', headers: { 'x-forwarded-proto': 'https' } })
    t.match(res.headers['strict-transport-security'], /^max-age=31536000; includeSubDomains$/, `${url}: HSTS over HTTPS`)
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${url}: and the rest of its set`)
    const claimed = await proxied.inject({ url, remoteAddress: '10.0.0.2', headers: { 'x-forwarded-proto': 'https' } })
    t.equal(claimed.headers['strict-transport-security'], undefined, `${url}: not for an untrusted peer's claim`)
  }
  const allowed = await app.inject({ method: 'OPTIONS', url: '/api/v1/auth/signin', headers: { origin: 'https://partner.example.test', 'access-control-request-method': 'POST' } })
  t.equal(allowed.headers['access-control-allow-origin'], 'https://partner.example.test', 'a CORS_ORIGINS origin may call')
  t.equal(allowed.headers['access-control-allow-credentials'], 'true')
  const read = await app.inject({ url: '/api/v1/health', headers: { origin: 'https://partner.example.test' } })
  t.same(String(read.headers['access-control-expose-headers']).split(',').map((h) => h.trim().toLowerCase()).sort(),
    ['idempotent-replayed', 'location', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'], 'and reads the headers a program needs')
  const foreign = await app.inject({ method: 'OPTIONS', url: '/api/v1/auth/signin', headers: { origin: 'https://evil.example.test', 'access-control-request-method': 'POST' } })
  t.equal(foreign.headers['access-control-allow-origin'], undefined, 'another origin may not')

  const noCors = await build(t, FAST_ARGON2, { database: app.database })
  const res = await noCors.inject({ url: '/api/v1/health', headers: { origin: 'https://partner.example.test' } })
  t.equal(res.headers['access-control-allow-origin'], undefined, 'no CORS at all without CORS_ORIGINS')
})

t.test('TLS=off without ALLOW_HTTP: only requests a trusted proxy says came over HTTPS', async (t) => {
  const proxied = await build(t, { ...FAST_ARGON2, ALLOW_HTTP: 'false', TRUST_PROXY: '10.0.0.1' }, { database: app.database })
  const via = (remoteAddress: string, headers: Record<string, string> = {}) => proxied.inject({ url: '/api/v1/health', remoteAddress, headers })
  t.same([(await via('10.0.0.1', { 'x-forwarded-proto': 'https' })).statusCode], [200], 'through the proxy, over HTTPS')
  const plain = await via('10.0.0.1', { 'x-forwarded-proto': 'http' })
  t.equal(plain.statusCode, 403, 'through the proxy, over plain HTTP')
  t.has(plain.json(), { code: 403, message: 'https required' })
  t.equal((await via('10.0.0.2', { 'x-forwarded-proto': 'https' })).statusCode, 403, 'an untrusted peer claiming HTTPS')
  t.equal((await via('10.0.0.2')).statusCode, 403, 'a direct plain request')
})

t.test('the database down: health 503, routes 503 GeneralError, no query parameters in the log', async (t) => {
  const logs = captureLogs()
  const database = await freshDatabase(t)
  const down = await build(t, FAST_ARGON2, { database, fastify: logs.fastify })
  const { email, token } = await signedInUser(down)
  // a session this instance has never seen (signed in through another one): its row is not in its
  // memory (src/services/sessions/rows.ts), so refreshing it needs the database
  const { cookie } = await signedInUser(await build(t, FAST_ARGON2, { database }), { email, signUp: false })
  const sessionId = decodeURIComponent(cookie.slice('sid='.length)).split('.')[0]
  t.ok(sessionId.length > 10)
  await database.close()

  const health = await down.inject({ url: '/api/v1/health' })
  t.equal(health.statusCode, 503)
  t.same(health.json(), { status: 'unavailable', db: 'down' })
  const unavailable = { ...general(503, 'service unavailable'), reason: 'unavailable' }
  t.same((await signin(down, { email })).json(), unavailable, 'sign-in')
  t.same((await down.inject({ method: 'POST', url: '/api/v1/auth/signup', payload: { email: uniqueEmail(), password: GOOD_PASSWORD, token: 'x' } })).json(), unavailable, 'sign-up')
  const refresh = await down.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', headers: { cookie } })
  t.equal(refresh.statusCode, 503, 'refresh (the session store cannot answer)')
  t.same(refresh.json(), unavailable)
  const info = await down.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${token}` } })
  t.equal(info.statusCode, 503, 'info: the token is accepted without the database, the handler then needs it')
  t.same(info.json(), unavailable)
  const forged = await down.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${token.slice(0, -2)}xx` } })
  t.has([forged.statusCode, forged.json()], [401, { code: 401, message: 'access denied' }], 'a bad token is refused without the database')

  const warned = logs.records().filter((r) => r.msg === 'database unavailable')
  t.ok(warned.length >= 3, 'each is logged')
  t.ok(warned.some((r) => /Failed query/.test(JSON.stringify(r.err))), 'with the failed query')
  t.notOk(logs.text().includes(sessionId), 'but not the session id it was run with')
  t.notOk(logs.text().includes(email), 'nor the e-mail address')
  t.notOk(logs.text().includes(token), 'nor the JWT')
})
