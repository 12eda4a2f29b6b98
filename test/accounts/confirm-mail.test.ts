// Mail and confirmation: sign-up mails PUBLIC_URL/confirm/<secret>
// through SMTP (a local smtp-server); a registered e-mail gets a notice instead; POST /auth/confirm
// and /auth/confirm/resend; in development without SMTP, RFC 822 files in DATA_DIR/outbox.
import t from '../tap.ts'
import { createHash } from 'node:crypto'
import argon2 from 'argon2'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { build, signedInUser, uniqueEmail } from '../helper.ts'
import { startSmtp } from '../peers/smtp.ts'
import { until } from '../peers/wait.ts'
import { captureLogs } from '../foundation/support.ts'
import { ACCESS_DENIED, FAST_ARGON2, info, post, signup } from './support.ts'

const PUBLIC_URL = 'https://pir.example.test'
const MAIL_FROM = 'Profile Reports <hello@pir.example.test>'
const LINK = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}/confirm/([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])`)
const NOT_FOUND = { code: 404, message: 'this link is invalid or has expired' }
const DAY = 86400_000

t.test('sign-up mails a confirmation link; the link confirms, again and again, until it expires', async (t) => {
  const smtp = await startSmtp(t)
  let clock = Date.now()
  const app = await build(t, { ...FAST_ARGON2, SMTP_URL: smtp.url, PUBLIC_URL, MAIL_FROM }, { now: () => clock })
  const confirm = (secret: string) => post(app, `/auth/confirm/${secret}`)

  const email = uniqueEmail('confirm')
  t.same((await signup(app, { email })).json(), { status: 'success' })
  const mail = await smtp.waitFor((m) => m.to.includes(email))
  t.equal(mail.from, 'hello@pir.example.test', 'sent from MAIL_FROM')
  t.match(mail.raw, /^From: Profile Reports <hello@pir\.example\.test>/m)
  t.equal(mail.subject, 'Confirm your e-mail address')
  const secret = LINK.exec(mail.text)?.[1]
  t.ok(secret, 'the link is PUBLIC_URL/confirm/<43 characters of base64url: 32 random bytes>')
  t.equal(Buffer.from(secret!, 'base64url').length, 32)

  const stored = await app.database.query<{ hash: string, kind: string, expires_at: Date }>(
    'select t.hash, t.kind, t.expires_at from auth_tokens t join users u on u.id = t.user_id where u.email = $1', [email])
  t.equal(stored.length, 1)
  t.equal(stored[0].hash, createHash('sha256').update(secret!).digest('hex'), 'only the SHA-256 of the secret is stored')
  t.equal(stored[0].kind, 'confirm')
  t.equal(new Date(stored[0].expires_at).getTime(), clock + 7 * DAY, 'valid for 7 days')
  const dump = JSON.stringify(await app.database.query('select * from auth_tokens'))
  t.notOk(dump.includes(secret!), 'the secret itself is nowhere in the table')

  const { token } = await signedInUser(app, { email, signUp: false })
  t.equal((await info(app, token)).json().confirmed, false, 'unconfirmed until the link is opened')
  const ok = await confirm(secret!)
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), { status: 'success' })
  t.equal((await info(app, token)).json().confirmed, true, 'confirmed')
  t.same((await confirm(secret!)).json(), { status: 'success' }, 'the same link again: still success')
  const audit = await app.database.query<{ n: number }>("select count(*)::int as n from audit_events where kind = 'confirm'")
  t.equal(audit[0].n, 1, 'confirmed once')

  for (const bad of ['unknown-link', 'A'.repeat(43), secret!.slice(0, -1)]) {
    const res = await confirm(bad)
    t.equal(res.statusCode, 404, `an unknown link: ${bad.slice(0, 12)}…`)
    t.has(res.json(), NOT_FOUND)
  }

  const late = uniqueEmail('late')
  await signup(app, { email: late })
  const lateSecret = LINK.exec((await smtp.waitFor((m) => m.to.includes(late))).text)![1]
  clock += 7 * DAY + 1000
  const expired = await confirm(lateSecret)
  t.equal(expired.statusCode, 404, 'a link older than 7 days')
  t.has(expired.json(), NOT_FOUND)
  const rows = await app.database.query<{ confirmed_at: Date | null }>('select confirmed_at from users where email = $1', [late])
  t.equal(rows[0].confirmed_at, null, 'and the account stays unconfirmed')
})

t.test('resend (Bearer): a new link for an unconfirmed account, nothing for a confirmed one', async (t) => {
  const smtp = await startSmtp(t)
  const app = await build(t, { ...FAST_ARGON2, SMTP_URL: smtp.url, PUBLIC_URL })
  const email = uniqueEmail('resend')
  await signup(app, { email })
  const first = LINK.exec((await smtp.waitFor((m) => m.to.includes(email))).text)![1]
  const { token } = await signedInUser(app, { email, signUp: false })
  const auth = { authorization: `Bearer ${token}` }

  const res = await post(app, '/auth/confirm/resend', undefined, auth)
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'success' })
  const second = await until(() => smtp.to(email).map((m) => LINK.exec(m.text)?.[1]).find((s) => s && s !== first), { what: 'a second link' })
  t.not(second, first, 'a new secret')
  t.same((await post(app, `/auth/confirm/${second}`)).json(), { status: 'success' }, 'the new link confirms')

  const tokens = async () => (await app.database.query<{ n: number }>('select count(*)::int as n from auth_tokens'))[0].n
  const before = await tokens()
  t.same((await post(app, '/auth/confirm/resend', undefined, auth)).json(), { status: 'success' }, 'a confirmed account: success …')
  t.equal(await tokens(), before, '… and no new link')

  const anonymous = await post(app, '/auth/confirm/resend')
  t.equal(anonymous.statusCode, 401, 'without a Bearer token')
  t.has(anonymous.json(), ACCESS_DENIED)
  t.has((await post(app, '/auth/confirm/resend', undefined, { cookie: 'sid=whatever' })).json(), ACCESS_DENIED, 'a cookie is not a Bearer token')
})

t.test('a registered e-mail: the same answer, and the owner gets a notice instead of a link', async (t) => {
  const smtp = await startSmtp(t)
  const app = await build(t, { ...FAST_ARGON2, SMTP_URL: smtp.url, PUBLIC_URL })
  const email = uniqueEmail('owner')
  const fresh = await signup(app, { email })
  await smtp.waitFor((m) => m.to.includes(email))
  const tokensBefore = await app.database.query('select hash from auth_tokens')

  const hash = t.capture(argon2, 'hash', argon2.hash)
  const other = await signup(app, { email: uniqueEmail('other') })
  t.equal(hash.calls.length, 1, 'a new address: one argon2 hash')
  const again = await signup(app, { email: email.toUpperCase(), password: 'somebody else entirely' })
  t.equal(hash.calls.length, 2, 'a registered address: one argon2 hash too (the same work, the same time)')
  t.equal(again.statusCode, fresh.statusCode)
  t.equal(again.body, fresh.body, 'byte-identical to a new sign-up')
  t.equal(again.body, other.body)
  const notice = await smtp.waitFor((m) => m.to.includes(email) && m.subject !== 'Confirm your e-mail address')
  t.equal(notice.subject, 'Someone tried to sign up with your e-mail address')
  t.notMatch(notice.text, /\/confirm\//, 'no confirmation link in it')
  t.match(notice.text, /sign in instead/)
  const tokensAfter = await app.database.query<{ n: number }>('select count(*)::int as n from auth_tokens t join users u on u.id = t.user_id where u.email = $1', [email])
  t.equal(tokensAfter[0].n, tokensBefore.length, 'no new link was made for the owner')
  t.same((await signedInUser(app, { email, signUp: false })).res.statusCode, 200, 'the owner\'s password still works')
})

t.test('mail failures never fail the request', async (t) => {
  const smtp = await startSmtp()
  await smtp.close() // a port with nothing behind it
  const logs = captureLogs()
  const app = await build(t, { ...FAST_ARGON2, SMTP_URL: smtp.url }, { fastify: logs.fastify })
  const res = await signup(app, { email: uniqueEmail() })
  t.same(res.json(), { status: 'success' })
  const logged = await until(() => logs.records().find((r) => r.msg === 'mail not sent'), { what: 'the mail failure in the log' })
  t.equal(logged.level, 50, 'logged as an error')
})

t.test('development without SMTP: an RFC 822 file in DATA_DIR/outbox and the link in the log', async (t) => {
  const logs = captureLogs()
  const app = await build(t, { ...FAST_ARGON2, NODE_ENV: 'development', DEMO_DATA: 'off', PUBLIC_URL }, { fastify: logs.fastify })
  const outbox = app.config.mail.outboxDir
  t.equal(outbox, join(app.config.dataDir, 'outbox'))
  const email = uniqueEmail('outbox')
  t.same((await signup(app, { email })).json(), { status: 'success' })

  const line = await until(() => logs.records().find((r) => r.msg === 'mail written to outbox'), { what: 'the outbox log line' })
  const secret = LINK.exec(String(line.link))?.[1]
  t.ok(secret, 'the log carries the link')
  const files = readdirSync(outbox)
  t.equal(files.length, 1)
  t.match(files[0], /\.eml$/)
  t.equal(line.file, join(outbox, files[0]), 'and the file')
  const raw = readFileSync(join(outbox, files[0]), 'utf8')
  t.match(raw, new RegExp(`^To: ${email.replace(/\./g, '\\.')}$`, 'm'), 'To:')
  t.match(raw, /^From: Profile Interest Reports <no-reply@localhost>$/m, 'From: (the default MAIL_FROM)')
  t.match(raw, /^Subject: Confirm your e-mail address$/m, 'Subject:')
  t.match(raw, /^Date: /m)
  t.match(raw, /^Message-ID: </m)
  t.match(raw.replace(/=\n/g, ''), `${PUBLIC_URL}/confirm/${secret}`, 'the body has the link')
  t.same((await post(app, `/auth/confirm/${secret}`)).json(), { status: 'success' }, 'and it works')
})

t.test('closing the app sends the mails it has accepted first: a shutdown right after sign-up loses none', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, PUBLIC_URL })
  const outbox = app.config.mail.outboxDir
  const emails = [uniqueEmail('closing'), uniqueEmail('closing')]
  for (const email of emails) t.equal((await signup(app, { email })).json().status, 'success')
  // the mails leave after the answers (sendLater): close at once, before they have
  await app.close()
  const files = readdirSync(outbox).map((f) => readFileSync(join(outbox, f), 'utf8'))
  for (const email of emails) t.ok(files.some((text) => text.includes(email)), `the mail to ${email} was written before the close ended`)
})
