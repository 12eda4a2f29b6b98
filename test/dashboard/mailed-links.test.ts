// The pages the mailed links open (PUBLIC_URL/confirm/<secret>, PUBLIC_URL/recovery/<secret>): the
// dashboard's own page with its document headers, never a JSON 404, whatever the secret looks like;
// every mailed link of a deleted account (the unsubscribe link too): the page, and a 404, no 5xx;
// and following both links as the page does (the page, then the API calls) leaves the secret in no
// log line at trace level, on the page paths, the API paths, their query strings, the not-found
// path and the router's refusals.
import t, { type Test } from '../tap.ts'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { build, logCapture, signedInUser, uniqueEmail, GOOD_PASSWORD } from '../helper.ts'
import { startSmtp, type SmtpPeer } from '../peers/smtp.ts'
import { redactUrl } from '../../src/logger.ts'
import { PUBLIC_DIR } from '../../src/plugins/static.ts'
import { claims, FAST_ARGON2 } from '../accounts/support.ts'

const PUBLIC_URL = 'https://pir.example.test'
const RECOVERY_INVALID = { status: 'error', fieldError: { field: 'password', message: 'This link is invalid or has expired' } }
const UNSUBSCRIBE_GONE = { code: 404, message: 'unsubscribe link of an account that no longer exists', reason: 'not_found' }
const INDEX = readFileSync(`${PUBLIC_DIR}index.html`, 'utf8')
// headers that describe this answer rather than the document's policy
const PER_ANSWER = new Set(['date', 'content-length', 'etag', 'last-modified', 'cache-control', 'x-request-id', 'accept-ranges', 'connection', 'keep-alive', 'referrer-policy'])

function link (smtp: SmtpPeer, email: string, kind: 'confirm' | 'recovery') {
  return smtp.waitFor((m) => m.to.includes(email) && m.text.includes(`/${kind}/`)).then((m) => {
    const secret = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}/${kind}/([A-Za-z0-9_-]{43})`).exec(m.text)?.[1]
    if (!secret) throw new Error(`no ${kind} link in ${m.text}`)
    return secret
  })
}

async function page (t: Test, app: FastifyInstance, url: string) {
  const res = await app.inject({ url })
  t.equal(res.statusCode, 200, `${url.slice(0, 60)}: 200`)
  t.match(res.headers['content-type'], /^text\/html/, 'HTML')
  t.equal(res.body, INDEX, 'the dashboard\'s own page')
  t.equal(res.headers['referrer-policy'], 'no-referrer')
  t.equal(res.headers['cache-control'], 'no-store')
  return res
}

t.test('both pages answer the dashboard with its document headers, whatever follows the prefix', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, PUBLIC_URL })
  const index = await app.inject({ url: '/' })
  t.equal(index.statusCode, 200)
  const policy = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).filter(([k]) => !PER_ANSWER.has(k) && !k.startsWith('ratelimit-')))
  for (const url of [
    '/confirm/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde',
    '/recovery/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde',
    '/confirm/', '/recovery/', // nothing at all
    '/confirm/short', '/recovery/not base64!', // wrong length, wrong characters
    `/recovery/${'x'.repeat(300)}`, // longer than any path parameter may be (that would be a 414)
    '/confirm/a/b/c', '/recovery/abc?utm_source=mail', '/confirm/%E2%9C%93', '/%63onfirm/abc'
  ]) {
    const res = await page(t, app, url)
    t.same(policy(res.headers), policy(index.headers), `${url.slice(0, 40)}: the headers of the dashboard's index (CSP and the rest)`)
  }
  t.match(String(index.headers['content-security-policy']), /default-src 'self'/, 'the document CSP')
  const head = await app.inject({ method: 'HEAD', url: '/confirm/abc' })
  t.equal(head.statusCode, 200, 'HEAD too')
  t.equal((await app.inject({ method: 'POST', url: '/confirm/abc' })).statusCode, 404, 'only GET: the pages post nothing to themselves')
})

t.test('following both mailed links as the page does leaves no secret in any log line', async (t) => {
  const smtp = await startSmtp(t)
  const app = await build(t, { ...FAST_ARGON2, PUBLIC_URL, SMTP_URL: smtp.url, LOG_LEVEL: 'trace' })
  const capture = logCapture(app)!
  t.ok(capture, 'the log is captured (at trace level)')

  const email = uniqueEmail('links')
  const up = await app.inject({ method: 'POST', url: '/api/v1/auth/signup', payload: { email, password: GOOD_PASSWORD, token: 'captcha' } })
  t.same(up.json(), { status: 'success' })
  const confirm = await link(smtp, email, 'confirm')
  capture.secret(confirm)

  // the confirmation link: the page, then what its script sends
  await page(t, app, `/confirm/${confirm}`)
  t.same((await app.inject({ method: 'POST', url: `/api/v1/auth/confirm/${confirm}` })).json(), { status: 'success' }, 'confirmed')

  // the recovery link: the page, the check, the new password
  t.same((await app.inject({ method: 'POST', url: '/api/v1/auth/recovery', payload: { email } })).json(), { status: 'success' })
  const recovery = await link(smtp, email, 'recovery')
  capture.secret(recovery)
  await page(t, app, `/recovery/${recovery}`)
  t.same((await app.inject({ url: `/api/v1/auth/recovery/${recovery}` })).json(), { status: 'success' }, 'the link is valid')
  const password = `${GOOD_PASSWORD} renewed`
  capture.secret(password)
  t.same((await app.inject({ method: 'POST', url: `/api/v1/auth/recovery/${recovery}`, payload: { password } })).json(),
    { status: 'success', revoked: { apiKeys: 0, webhooks: [] } }, 'the password is set')

  // the same secrets where nothing expects them: a query string, more segments, another spelling,
  // a method no route has (the not-found path), the router's refusals (bad percent-encoding, too long)
  const odd = [
    { url: `/confirm/${confirm}?ref=${confirm}&hash=${confirm}` },
    { url: `/recovery/${recovery}/again` },
    { url: `/%72ecovery/${recovery}` },
    { url: `/CONFIRM/${confirm}` },
    { url: `/api/v1/auth/confirm/${confirm}` },
    { url: `/api/v1/auth/recovery/${recovery}?secret=${recovery}` },
    { method: 'DELETE' as const, url: `/api/v1/auth/recovery/${recovery}` },
    { method: 'POST' as const, url: `/api/v1/auth/confirm/${confirm}%zz` },
    { method: 'POST' as const, url: `/api/v1/auth/confirm/${confirm}${confirm}${confirm}` },
    { url: `/confirm/%zz${confirm}` },
    { url: `/api/v1/nowhere?hash=${recovery}` }
  ]
  for (const r of odd) {
    const res = await app.inject(r)
    t.ok(res.statusCode < 500, `${r.method ?? 'GET'} ${r.url.slice(0, 30)}…: ${res.statusCode}`)
  }

  const all = capture.lines.join('\n')
  t.ok(capture.lines.length > 20, `${capture.lines.length} lines`)
  t.match(all, '"url":"/confirm/[redacted]"', 'the confirmation page request is logged, its secret redacted')
  t.match(all, '"url":"/recovery/[redacted]"', 'the recovery page request is logged, its secret redacted')
  t.match(all, '"url":"/api/v1/auth/confirm/[redacted]"')
  t.match(all, '"url":"/api/v1/auth/recovery/[redacted]"')
  t.equal(app.log.level, 'trace', 'logged at trace level')
  for (const s of [confirm, recovery]) t.notOk(capture.lines.some((l) => l.includes(s)), 'the secret is in no line')
  t.same(capture.leaks(), [], 'nothing shaped like a secret either')
})

t.test('every mailed link of a deleted account opens the page, and the API answers 404, never a 5xx', async (t) => {
  const smtp = await startSmtp(t)
  const app = await build(t, { ...FAST_ARGON2, PUBLIC_URL, SMTP_URL: smtp.url })
  const capture = logCapture(app)!
  const user = await signedInUser(app)
  const confirm = await link(smtp, user.email, 'confirm')
  t.same((await app.inject({ method: 'POST', url: '/api/v1/auth/recovery', payload: { email: user.email } })).json(), { status: 'success' })
  const recovery = await link(smtp, user.email, 'recovery')
  const unsubscribe = app.services.unsubscribeTokens.sign(claims(user.token).sub as string)
  for (const s of [confirm, recovery, unsubscribe]) capture.secret(s)
  const removed = await app.inject({ method: 'DELETE', url: '/api/v1/auth/account', headers: user.auth, payload: { password: user.password } })
  t.equal(removed.statusCode, 204, 'the account is deleted')

  for (const url of [`/confirm/${confirm}`, `/recovery/${recovery}`, `/unsubscribe/${unsubscribe}`]) await page(t, app, url)
  const form = { 'content-type': 'application/x-www-form-urlencoded' }
  const calls: Array<[string, { method?: 'GET' | 'POST', url: string, payload?: object | string, headers?: Record<string, string> }, number, unknown]> = [
    ['confirm', { method: 'POST', url: `/api/v1/auth/confirm/${confirm}` }, 404, { code: 404, message: 'this link is invalid or has expired', reason: 'not_found' }],
    ['recovery check', { url: `/api/v1/auth/recovery/${recovery}` }, 200, RECOVERY_INVALID],
    ['recovery reset', { method: 'POST', url: `/api/v1/auth/recovery/${recovery}`, payload: { password: `${GOOD_PASSWORD} renewed` } }, 200, RECOVERY_INVALID],
    ['unsubscribe', { method: 'POST', url: '/api/v1/alerts/unsubscribe', payload: { token: unsubscribe } }, 404, UNSUBSCRIBE_GONE],
    ['one-click unsubscribe', { method: 'POST', url: `/api/v1/alerts/mail/unsubscribe/${unsubscribe}`, headers: form, payload: 'List-Unsubscribe=One-Click' }, 404, UNSUBSCRIBE_GONE]
  ]
  for (const [what, request, status, body] of calls) {
    const res = await app.inject(request)
    t.same({ status: res.statusCode, body: res.json() }, { status, body }, `${what}: ${status}`)
  }
  t.same(capture.leaks(), [], 'no secret in any log line')
})

t.test('redactUrl: everything after a link segment, and named secret parameters', async (t) => {
  const cases: Array<[string, string]> = [
    ['/confirm/abc', '/confirm/[redacted]'],
    ['/recovery/abc?utm=1', '/recovery/[redacted]?utm=[redacted]'],
    ['/recovery/abc/def', '/recovery/[redacted]'],
    ['/confirm/', '/confirm/[redacted]'],
    ['/Confirm/abc', '/Confirm/[redacted]'],
    ['/%63onfirm/abc', '/confirm/[redacted]'],
    ['/confirm/%zzabc', '/confirm/[redacted]'],
    ['/api/v1/auth/confirm/abc', '/api/v1/auth/confirm/[redacted]'],
    ['/api/v1/auth/recovery/abc?x=1', '/api/v1/auth/recovery/[redacted]?x=[redacted]'],
    ['/api/v1/report?next=%2Fconfirm%2Fabc&offset=1', '/api/v1/report?next=[redacted]&offset=1'],
    ['/api/v1/sse/9b6b?token=abc&x=1', '/api/v1/sse/9b6b?token=[redacted]&x=1'],
    ['/api/v1/auth/confirm/resend', '/api/v1/auth/confirm/resend'],
    ['/api/v1/auth/recovery', '/api/v1/auth/recovery'],
    ['/confirm?hash=abc&x=1', '/confirm?hash=[redacted]&x=1'],
    ['/api/v1/report/%41?offset=1', '/api/v1/report/%41?offset=1'],
    ['/', '/']
  ]
  for (const [url, logged] of cases) t.equal(redactUrl(url), logged, url)
})
