// Password recovery: the mailed link over real SMTP (a local smtp-server),
// single use (also under concurrency), one hour of validity (injected clock), every session ended on
// this instance and on another one, no enumeration, no token or cookie in any answer, the rate limits,
// and no secret in the logs. A reset leaves an account's second factor in place: the next sign-in is
// at level 1. One app for the file (plus a second instance on its database).
import { createHash } from 'node:crypto'
import t, { type Test } from '../tap.ts'
import type { LightMyRequestResponse } from 'fastify'
import { build, freshDatabase, GOOD_PASSWORD, sessionCookie, signedInUser, uniqueEmail } from '../helper.ts'
import { loggerOptions } from '../../src/logger.ts'
import { startSmtp, type SmtpPeer } from '../peers/smtp.ts'
import { until } from '../peers/wait.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'

const NEW_PASSWORD = 'a brand new passphrase 42'
/** a reset's answer for an account without API keys or webhook endpoints: nothing to revoke */
const RESET_DONE = { status: 'success', revoked: { apiKeys: 0, webhooks: [] } }
const INVALID = { status: 'error', fieldError: { field: 'password', message: 'This link is invalid or has expired' } }
const SUBJECT = 'Reset your password'
const PUBLIC_URL = 'https://reports.example'
const LINK = /https:\/\/reports\.example\/recovery\/([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/
// the lowest argon2 cost the config accepts: the same code path, a fraction of the time
const ENV = { PUBLIC_URL, MAIL_FROM: 'Reports <recovery@reports.example>', ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' }

let smtp: SmtpPeer
let app: Awaited<ReturnType<typeof build>>
let env: Record<string, string>
let database: Awaited<ReturnType<typeof freshDatabase>>
/** moved forward by the expiry test; every other test lives with it */
const clock = { offset: 0 }
const now = () => Date.now() + clock.offset
/** every line the app logs (level info: request lines included) */
const logLines: string[] = []
/** every secret and password this file handles, none of which may reach a log line */
const secrets: string[] = [GOOD_PASSWORD, NEW_PASSWORD]
let ipSeq = 0
/** a client address of its own, so one test's rate-limit budget is not another's */
const newIp = () => `10.0.${Math.floor(++ipSeq / 250)}.${ipSeq % 250 + 1}`

t.before(async () => {
  smtp = await startSmtp(t)
  database = await freshDatabase(t)
  env = { ...ENV, SMTP_URL: smtp.url }
  app = await build(t, env, {
    database,
    now,
    fastify: { logger: { ...(loggerOptions('info') as object), stream: { write: (line: string) => { logLines.push(line) } } } }
  })
})

const recover = (email: string, remoteAddress = '127.0.0.1') =>
  app.inject({ method: 'POST', url: '/api/v1/auth/recovery', payload: { email }, remoteAddress })

/** recovery never signs in: no cookie and no token, ever */
function noSignin (t: Test, res: LightMyRequestResponse) {
  t.notOk(res.headers['set-cookie'], 'no set-cookie')
  t.notOk('token' in (res.json() as object), 'no token')
}

/** the secret of the recovery mail that reaches `email` after `before` mails were received */
async function mailedSecret (email: string, before: number): Promise<string> {
  const mail = await smtp.waitFor((m) => smtp.mails.indexOf(m) >= before && m.to.includes(email) && m.subject === SUBJECT)
  const secret = LINK.exec(mail.text)?.[1]
  if (!secret) throw new Error(`no link in ${mail.text}`)
  secrets.push(secret)
  return secret
}

async function requestLink (t: Test, email: string): Promise<string> {
  const before = smtp.mails.length
  const res = await recover(email, newIp())
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'success' })
  noSignin(t, res)
  return await mailedSecret(email, before)
}

t.test('registered and unregistered addresses: the same answer; mail only for the registered one, after the answer', async (t) => {
  const user = await signedInUser(app)
  const stranger = uniqueEmail('nobody')
  const before = smtp.mails.length

  // The SMTP server holds every delivery: answers that arrive meanwhile did not wait for the mail.
  const release = smtp.hold()
  const a = await recover(stranger)
  const b = await recover(`  ${user.email.toUpperCase()} `)
  t.equal(smtp.to(user.email).filter((m) => m.subject === SUBJECT).length, 0, 'the answers arrived while the mail was still held')
  for (const res of [a, b]) {
    t.equal(res.statusCode, 200)
    noSignin(t, res)
  }
  t.equal(a.body, b.body, 'identical bodies')
  t.same(a.json(), { status: 'success' })
  t.equal(a.headers['content-type'], b.headers['content-type'])
  t.equal(a.headers['content-length'], b.headers['content-length'])
  release()

  const secret = await mailedSecret(user.email, before)
  const mail = smtp.to(user.email).find((m) => m.subject === SUBJECT)!
  t.match(mail.text, `${PUBLIC_URL}/recovery/${secret}`, 'the link is PUBLIC_URL/recovery/<secret>')
  t.match(mail.text, /one hour/)
  t.equal(mail.from, 'recovery@reports.example', 'sent from MAIL_FROM')

  // Another registered address afterwards: once its mail is in, a mail to the stranger, had one been
  // asked for before it, would have reached the server too.
  const marker = await signedInUser(app)
  await requestLink(t, marker.email)
  t.notOk(smtp.recipients.includes(stranger), 'the server was never asked to deliver to the unregistered address')
  t.equal(smtp.to(user.email).filter((m) => m.subject === SUBJECT).length, 1, 'one mail for the registered address')

  // Only the SHA-256 of the secret is stored.
  const rows = await app.database.query<{ hash: string }>(
    "select t.hash from auth_tokens t join users u on u.id = t.user_id where t.kind = 'recovery' and u.email = $1", [user.email])
  t.equal(rows.length, 1)
  t.not(rows[0].hash, secret)
  t.equal(rows[0].hash, createHash('sha256').update(secret).digest('hex'))
  t.equal(Buffer.from(secret, 'base64url').length, 32, 'a secret of 32 random bytes')
})

t.test('the link validates, sets the password once, ends every session everywhere and confirms the address', async (t) => {
  const user = await signedInUser(app)
  const second = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: user.password, token: true } })
  const secondAuth = { authorization: `Bearer ${second.json().token}` }
  // another instance on the same database, which learns of ended sessions through NOTIFY
  const other = await build(t, env, { database })
  t.equal((await other.inject({ url: '/api/v1/auth/info', headers: user.auth })).statusCode, 200, 'the other instance accepts the JWT')
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: user.auth })).json().confirmed, false)

  const secret = await requestLink(t, user.email)
  const url = `/api/v1/auth/recovery/${secret}`

  const check = await app.inject({ url })
  t.equal(check.statusCode, 200)
  t.same(check.json(), { status: 'success' })
  noSignin(t, check)

  // the sign-up policy, and a refused password leaves the link usable
  const common = await app.inject({ method: 'POST', url, payload: { password: 'password123' } })
  t.equal(common.statusCode, 200)
  t.same(common.json(), { status: 'error', fieldError: { field: 'password', message: 'This password is too common, choose another one' } })
  noSignin(t, common)
  const short = await app.inject({ method: 'POST', url, payload: { password: 'short' } })
  t.same(short.json(), { status: 'error', fieldError: { field: 'password', message: 'Password must be at least 8 characters' } })
  const long = await app.inject({ method: 'POST', url, payload: { password: 'x'.repeat(257) } })
  t.same(long.json(), { status: 'error', fieldError: { field: 'password', message: 'Password must be at most 256 characters' } })
  const same = await app.inject({ method: 'POST', url, payload: { password: user.email } })
  t.same(same.json().fieldError, { field: 'password', message: 'Password must not be your e-mail address' })
  t.same((await app.inject({ url })).json(), { status: 'success' }, 'still valid after refused passwords')
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: user.auth })).statusCode, 200, 'sessions go on until the password changes')

  const done = await app.inject({ method: 'POST', url, payload: { password: NEW_PASSWORD } })
  t.equal(done.statusCode, 200)
  t.same(done.json(), RESET_DONE)
  noSignin(t, done)

  // used: GET and POST both refuse it now
  const again = await app.inject({ url })
  t.same(again.json(), INVALID)
  noSignin(t, again)
  const twice = await app.inject({ method: 'POST', url, payload: { password: 'yet another passphrase 7' } })
  t.same(twice.json(), INVALID)
  noSignin(t, twice)

  // every JWT of the account is refused, here and on the other instance, and its cookie too
  for (const auth of [user.auth, secondAuth]) {
    const info = await app.inject({ url: '/api/v1/auth/info', headers: auth })
    t.equal(info.statusCode, 401)
    t.has(info.json(), { code: 401, message: 'access denied' })
  }
  const elsewhere = await until(async () => {
    const res = await other.inject({ url: '/api/v1/auth/info', headers: secondAuth })
    return res.statusCode === 401 ? res : undefined
  }, { what: 'the other instance to refuse the old JWT' })
  t.has(elsewhere.json(), { code: 401, message: 'access denied' }, 'the other instance refuses it too')
  const refresh = await app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', headers: { cookie: user.cookie } })
  t.equal(refresh.statusCode, 401, 'the old cookie no longer refreshes')

  const old = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: user.password, token: true } })
  t.same(old.json(), { status: 'error', fieldError: { field: 'password', message: 'Wrong e-mail or password' } }, 'the old password no longer signs in')
  const fresh = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: NEW_PASSWORD, token: true } })
  t.equal(fresh.json().status, 'success', 'the new password signs in')
  t.ok(sessionCookie(fresh))
  const info = await app.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${fresh.json().token}` } })
  t.equal(info.statusCode, 200)
  t.equal(info.json().confirmed, true, 'the address is confirmed: the owner proved the mailbox')

  const audit = await app.database.query<{ ip: string }>(
    "select a.ip from audit_events a join users u on u.id = a.user_id where a.kind = 'password.reset' and u.email = $1", [user.email])
  t.equal(audit.length, 1, 'one audit event')
})

t.test('a new link kills the older unused ones when it is used', async (t) => {
  const user = await signedInUser(app)
  const first = await requestLink(t, user.email)
  const second = await requestLink(t, user.email)
  t.same((await app.inject({ url: `/api/v1/auth/recovery/${first}` })).json(), { status: 'success' }, 'both links are valid')
  const done = await app.inject({ method: 'POST', url: `/api/v1/auth/recovery/${second}`, payload: { password: NEW_PASSWORD } })
  t.same(done.json(), RESET_DONE)
  t.same((await app.inject({ url: `/api/v1/auth/recovery/${first}` })).json(), INVALID, 'the other link died with it')
})

t.test('two simultaneous uses of one link: exactly one succeeds', async (t) => {
  const user = await signedInUser(app)
  const secret = await requestLink(t, user.email)
  const url = `/api/v1/auth/recovery/${secret}`
  const words = ['first', 'second', 'third']
  let settled = 0
  const race = () => Promise.all(words.map(async (w) => {
    const res = await app.inject({ method: 'POST', url, payload: { password: `${w} concurrent passphrase` } })
    settled++
    return res
  }))
  let answers: LightMyRequestResponse[]
  if (database.sql) {
    // On PostgreSQL the test holds the link's row lock until all three uses wait on it, so they truly
    // overlap: each has passed its read of the link, and only the consuming UPDATE decides.
    const sql = database.sql
    const hash = createHash('sha256').update(secret).digest('hex')
    let pending: Promise<LightMyRequestResponse[]> | undefined
    await sql.begin(async (tx) => {
      await tx`select 1 from auth_tokens where hash = ${hash} for update`
      pending = race()
      await until(async () => {
        const [{ n }] = await sql<Array<{ n: number }>>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`
        return n >= words.length || settled === words.length
      }, { what: 'the three uses to wait on the lock' })
    })
    answers = await pending!
  } else {
    answers = await race()
  }
  const bodies = answers.map((r) => r.json())
  t.same(answers.map((r) => r.statusCode), [200, 200, 200])
  t.equal(bodies.filter((b) => b.status === 'success').length, 1, JSON.stringify(bodies))
  t.same(bodies.filter((b) => b.status === 'error'), [INVALID, INVALID])
  const winner = words[bodies.findIndex((b) => b.status === 'success')]
  for (const w of words) {
    const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: `${w} concurrent passphrase` } })
    t.equal(signin.json().status, w === winner ? 'success' : 'error', `${w}: ${w === winner ? 'the stored password' : 'not stored'}`)
  }
  const audit = await app.database.query(
    "select 1 from audit_events a join users u on u.id = a.user_id where a.kind = 'password.reset' and u.email = $1", [user.email])
  t.equal(audit.length, 1, 'one reset, one audit event')
})

t.test('a link lasts one hour', async (t) => {
  const user = await signedInUser(app)
  const secret = await requestLink(t, user.email)
  const url = `/api/v1/auth/recovery/${secret}`

  clock.offset += 59 * 60_000
  t.same((await app.inject({ url })).json(), { status: 'success' }, 'valid after 59 minutes')
  clock.offset += 60_000 + 1000
  t.same((await app.inject({ url })).json(), INVALID, 'expired after an hour')
  const late = await app.inject({ method: 'POST', url, payload: { password: NEW_PASSWORD } })
  t.same(late.json(), INVALID)
  noSignin(t, late)
  const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: GOOD_PASSWORD, token: true } })
  t.equal(signin.json().status, 'success', 'the password is unchanged')
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: user.auth })).statusCode, 200, 'the sessions go on')
})

t.test('unknown, empty and malformed links are invalid links', async (t) => {
  for (const hash of ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'nope', '', '%00', 'a%2Fb', 'x'.repeat(100)]) {
    const url = `/api/v1/auth/recovery/${hash}`
    const get = await app.inject({ url })
    t.equal(get.statusCode, 200, `GET ${hash.slice(0, 12)}`)
    t.same(get.json(), INVALID)
    const post = await app.inject({ method: 'POST', url, payload: { password: NEW_PASSWORD } })
    t.same(post.json(), INVALID, `POST ${hash.slice(0, 12)}`)
    noSignin(t, post)
  }
  const noBody = await app.inject({ method: 'POST', url: '/api/v1/auth/recovery/nope', payload: {} })
  t.equal(noBody.statusCode, 200)
  t.same(noBody.json(), { status: 'error', fieldError: { field: 'password', message: 'Enter a password' } })
})

t.test('bad bodies: a form error for a bad address, 400 for a body that is not JSON', async (t) => {
  const ip = newIp()
  const bad = await recover('not an address', ip)
  t.equal(bad.statusCode, 200)
  t.same(bad.json(), { status: 'error', fieldError: { field: 'email', message: 'Enter a valid e-mail address' } })
  const missing = await app.inject({ method: 'POST', url: '/api/v1/auth/recovery', payload: {}, remoteAddress: ip })
  t.same(missing.json(), { status: 'error', fieldError: { field: 'email', message: 'Enter a valid e-mail address' } })
  const broken = await app.inject({
    method: 'POST', url: '/api/v1/auth/recovery', headers: { 'content-type': 'application/json' }, payload: '{"email":', remoteAddress: ip
  })
  t.equal(broken.statusCode, 400)
  t.has(broken.json(), { code: 400, message: 'body is not valid JSON' })
  const brokenLink = await app.inject({
    method: 'POST', url: '/api/v1/auth/recovery/nope', headers: { 'content-type': 'application/json' }, payload: '{"password":'
  })
  t.equal(brokenLink.statusCode, 400)
  t.has(brokenLink.json(), { code: 400, message: 'body is not valid JSON' })
})

t.test('rate limits (defaults): 5 per hour per address, 20 per hour per IP', async (t) => {
  t.equal(app.config.rateLimits.recoveryEmail, 5)
  t.equal(app.config.rateLimits.recoveryIp, 20)

  // per address, counted on the normalized address and across client addresses
  const email = uniqueEmail('limited')
  const variants = [email, email.toUpperCase(), ` ${email} `, email, email]
  for (const [i, e] of variants.entries()) t.equal((await recover(e, newIp())).statusCode, 200, `address request ${i + 1}`)
  const sixth = await recover(email, newIp())
  t.equal(sixth.statusCode, 429, 'the sixth request for one address within the hour is refused')
  t.has(sixth.json(), { code: 429, message: 'too many requests' })
  t.ok(Number(sixth.headers['retry-after']) > 0, 'with Retry-After')
  t.notOk(sixth.headers['set-cookie'])
  t.equal((await recover(uniqueEmail('other'), newIp())).statusCode, 200, 'another address still passes')

  // per client IP, whatever the address; a forged X-Forwarded-For buys nothing (no TRUST_PROXY)
  const ip = newIp()
  for (let i = 1; i <= 20; i++) t.equal((await recover(uniqueEmail('ip'), ip)).statusCode, 200, `IP request ${i}`)
  const over = await recover(uniqueEmail('ip'), ip)
  t.equal(over.statusCode, 429, 'the 21st request from one IP within the hour is refused')
  t.ok(Number(over.headers['retry-after']) > 0)
  const forged = await app.inject({
    method: 'POST', url: '/api/v1/auth/recovery', payload: { email: uniqueEmail('ip') }, remoteAddress: ip, headers: { 'x-forwarded-for': '203.0.113.9' }
  })
  t.equal(forged.statusCode, 429, 'X-Forwarded-For from an untrusted peer changes nothing')
  t.equal((await recover(uniqueEmail('ip'), newIp())).statusCode, 200, 'another IP still passes')
})

t.test('an account with an authenticator app: the reset signs no one in, the factor stays, the next sign-in is at level 1', async (t) => {
  const user = await signedInUser(app)
  const begun = await app.inject({ method: 'POST', url: '/api/v1/auth/mfa/totp', headers: user.auth })
  const { secret: totpSecret } = begun.json() as { secret: string }
  secrets.push(totpSecret)
  const confirmed = await app.inject({ method: 'POST', url: '/api/v1/auth/mfa/totp/confirm', headers: user.auth, payload: { code: codeAt(totpSecret, now()) } })
  t.equal(confirmed.json().status, 'success', confirmed.body)
  const leveled = { authorization: `Bearer ${confirmed.json().token}` }

  const secret = await requestLink(t, user.email)
  const done = await app.inject({ method: 'POST', url: `/api/v1/auth/recovery/${secret}`, payload: { password: NEW_PASSWORD } })
  t.same(done.json(), RESET_DONE)
  noSignin(t, done)
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: leveled })).statusCode, 401, 'the level-2 session ended with the old password')

  const [factors] = await app.database.query<{ totp: number, codes: number }>(
    `select (select count(*)::int from mfa_totp m where m.user_id = u.id and m.confirmed_at is not null) as totp,
            (select count(*)::int from mfa_recovery_codes c where c.user_id = u.id and c.used_at is null) as codes
       from users u where u.email = $1`, [user.email])
  t.same(factors, { totp: 1, codes: 10 }, 'the authenticator app and its recovery codes stay')

  const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: NEW_PASSWORD, token: true } })
  const token = signin.json().token as string
  t.same(signin.json(), { status: 'success', mfaRequired: true, token }, 'the new password alone is level 1')
  t.equal(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).aal, 1)
  const info = await app.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${token}` } })
  t.same(info.json().mfa, { totp: true, passkeys: 0, recoveryCodesLeft: 10 })
  const gated = await app.inject({ url: '/api/v1/auth/sessions', headers: { authorization: `Bearer ${token}` } })
  t.has(gated.json(), { code: 403, message: 'second factor required' }, 'the account waits for the second factor')
})

t.test('no log line carries a recovery secret or a password', async (t) => {
  t.ok(logLines.some((l) => l.includes('/auth/recovery/[redacted]')), 'recovery requests are logged, with the secret redacted')
  t.ok(secrets.length > 6, 'secrets were collected')
  const leaked = logLines.filter((l) => secrets.some((s) => l.includes(s)))
  t.same(leaked, [], 'no secret in the logs')
})
