// The audit trail and the logs: every sign-up, sign-in (success and
// failure), confirmation and sign-out is a row of audit_events with IP and user agent; log lines
// carry a request id and never a password, token, cookie or secret.
import t from '../tap.ts'
import { build, uniqueEmail } from '../helper.ts'
import { startSmtp } from '../peers/smtp.ts'
import { captureLogs } from '../foundation/support.ts'
import { redactUrl } from '../../src/logger.ts'
import { FAST_ARGON2, post, refresh, signin } from './support.ts'

const PASSWORD = 'an unmistakable pass phrase 7f3a'
const CAPTCHA_TOKEN = 'captcha-token-b41c9e'
const UA = 'audit-test/1.0'
const IP = '192.0.2.60'

t.test('one account\'s life in audit_events, and nothing secret in the log', async (t) => {
  const smtp = await startSmtp(t)
  const logs = captureLogs()
  const app = await build(t, { ...FAST_ARGON2, SMTP_URL: smtp.url, PUBLIC_URL: 'https://pir.example.test' }, { fastify: logs.fastify })
  const headers = { 'user-agent': UA }
  const send = (url: string, payload?: object, extra: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `/api/v1${url}`, remoteAddress: IP, headers: { ...headers, ...extra }, ...(payload ? { payload } : {}) })

  const email = uniqueEmail('audit')
  t.same((await send('/auth/signup', { email, password: PASSWORD, token: CAPTCHA_TOKEN })).json(), { status: 'success' })
  t.equal((await send('/auth/signin', { email: uniqueEmail('nobody'), password: PASSWORD })).json().status, 'error')
  t.equal((await send('/auth/signin', { email, password: PASSWORD + '!' })).json().status, 'error')
  const ok = await send('/auth/signin', { email, password: PASSWORD, token: true })
  const token = ok.json().token as string
  const sid = ok.cookies.find((c) => c.name === 'sid')!.value
  const cookie = `sid=${sid}`
  const refreshed = (await refresh(app, cookie)).json().token as string
  const me = await app.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${token}` } })
  const userId = me.json().id as string
  const secret = /\/confirm\/([\w-]+)/.exec((await smtp.waitFor((m) => m.to.includes(email))).text)![1]
  t.same((await send(`/auth/confirm/${secret}`)).json(), { status: 'success' })
  t.same((await send('/auth/signout', undefined, { authorization: `Bearer ${refreshed}`, cookie })).json(), { status: 'success' })

  const rows = await app.database.query<{ kind: string, user_id: string | null, ip: string, user_agent: string, created_at: Date }>(
    'select kind, user_id, ip, user_agent, created_at from audit_events order by id')
  t.same(rows.map((r) => [r.kind, r.user_id]), [
    ['signup', userId],
    ['signin.failure', null],
    ['signin.failure', userId],
    ['signin.success', userId],
    ['confirm', userId],
    ['signout', userId]
  ], 'sign-up, both failures (an unknown e-mail has no user), success, confirmation, sign-out')
  for (const r of rows) {
    t.equal(r.ip, IP, `${r.kind}: the client IP`)
    t.equal(r.user_agent, UA, `${r.kind}: the user agent`)
    t.ok(new Date(r.created_at).getTime() > 0, `${r.kind}: when`)
  }

  // Things a careless handler might log, logged on purpose: the redaction paths remove them.
  app.log.info({ password: PASSWORD, token, credential: 'google-id-token', secret, user: { password: PASSWORD, token }, headers: { authorization: `Bearer ${token}`, cookie }, req: { headers: { authorization: `Bearer ${token}`, cookie } } }, 'redaction probe')
  const probe = logs.records().find((r) => r.msg === 'redaction probe')!
  t.match(probe, { password: '[redacted]', token: '[redacted]', credential: '[redacted]', secret: '[redacted]', user: { password: '[redacted]', token: '[redacted]' }, headers: { authorization: '[redacted]', cookie: '[redacted]' } })
  t.notOk(JSON.stringify(probe.req).includes(token), 'no Authorization header under req')
  t.notOk(JSON.stringify(probe.req).includes(sid), 'no Cookie header under req')
  app.log.error({ err: Object.assign(new Error(`Failed query: select 1 where id = $1\nparams: ${secret}`), { params: [secret] }) }, 'query probe')
  const failed = logs.records().find((r) => r.msg === 'query probe')!.err as Record<string, string>
  t.equal(failed.message, 'Failed query: select 1 where id = $1\nparams: [redacted]', 'a failed query keeps its text and loses its parameters')
  t.equal(failed.params, '[redacted]')

  const text = logs.text()
  const requestLines = logs.records().filter((r) => r.msg === 'incoming request' || r.msg === 'request completed')
  t.ok(requestLines.length >= 16, 'the requests were logged')
  t.ok(requestLines.every((r) => typeof r.reqId === 'string'), 'every request line has a request id')
  for (const [what, value] of [['the password', PASSWORD], ['the CAPTCHA token', CAPTCHA_TOKEN], ['the JWT', token], ['the refreshed JWT', refreshed],
    ['the JWT signature', token.split('.')[2]], ['the session cookie', decodeURIComponent(sid).split('.')[0]], ['the cookie signature', decodeURIComponent(sid).split('.')[1]],
    ['the confirmation secret', secret]] as const) {
    t.notOk(text.includes(value), `no ${what} in the log`)
  }
  t.ok(logs.records().some((r) => (r.req as { url?: string } | undefined)?.url === '/api/v1/auth/confirm/[redacted]'), 'the confirmation URL is logged without its secret')
})

t.test('URLs in the log lose their secrets', async (t) => {
  t.equal(redactUrl('/api/v1/auth/confirm/abcDEF_-123'), '/api/v1/auth/confirm/[redacted]')
  t.equal(redactUrl('/api/v1/auth/recovery/abcDEF_-123?x=1'), '/api/v1/auth/recovery/[redacted]?x=[redacted]', 'any query value of a link request may hold its secret')
  t.equal(redactUrl('/api/v1/auth/confirm/resend'), '/api/v1/auth/confirm/resend', 'resend is not a secret')
  t.equal(redactUrl('/api/v1/sse/9b6b?token=eyJ.abc.def&x=1'), '/api/v1/sse/9b6b?token=[redacted]&x=1')
  t.equal(redactUrl('/api/v1/report?offset=10'), '/api/v1/report?offset=10')
})

t.test('sign-in failures on an unknown e-mail are audited without a user', async (t) => {
  const app = await build(t, FAST_ARGON2)
  await signin(app, { email: uniqueEmail(), password: 'whatever it is' })
  await post(app, '/auth/signout')
  const rows = await app.database.query<{ kind: string, user_id: string | null }>('select kind, user_id from audit_events')
  t.same(rows, [{ kind: 'signin.failure', user_id: null }], 'and a refused sign-out is not an event')
})
