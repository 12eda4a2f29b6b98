// The alert digest mail, through SMTP (a local smtp-server) and a clock the test moves: one mail per
// ALERT_DIGEST_INTERVAL_H however many alerts and however many workers pass at once, new red flags
// first, each alert with its report's link; the mail's unsubscribe link works without a session
// (the page's POST and the List-Unsubscribe one-click POST of RFC 8058), its GET only opens a page,
// and it stops the digest; a tampered token is 400; a link older than 90 days or of a deleted account
// is 404; the signed-in user's GET/PUT /alerts/mail.
import t from '../tap.ts'
import { createHmac, hkdfSync } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { build, logCapture, signedInUser } from '../helper.ts'
import { startSmtp } from '../peers/smtp.ts'
import { alertMail, alerts } from '../../src/db/schema/index.ts'
import { change, raise, userIdByEmail, watchedReport } from '../watches/support.ts'

const PUBLIC_URL = 'https://pir.example.test'
const HOUR = 3600_000
const smtp = await startSmtp(t)
let clock = Date.now()
const app = await build(t, { SMTP_URL: smtp.url, PUBLIC_URL, ALERT_DIGEST_INTERVAL_H: '24' }, { now: () => clock })
const digest = app.services.alertDigest
// <user id>.<issued at, seconds>.<mac>
const TOKEN = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}/unsubscribe/([0-9a-f-]{36}\\.[1-9][0-9]*\\.[A-Za-z0-9_-]{43})\\n`)
const DAY = 24 * HOUR

async function watcher () {
  const user = await signedInUser(app)
  const userId = await userIdByEmail(app, user.email)
  return { ...user, userId, watched: await watchedReport(app, userId) }
}
/** the digests this address got (not its sign-up confirmation) */
const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email.toLowerCase()) && /watched reports/.test(m.subject))
/** the raw mail with its folded header lines unfolded */
const unfolded = (raw: string) => raw.replace(/\r?\n[ \t]+/g, ' ')
const unsubscribe = (token: string) => app.inject({ method: 'POST', url: '/api/v1/alerts/unsubscribe', payload: { token } })

t.test('one digest per interval, however many alerts and workers; new red flags first, each with its report\'s link', async (t) => {
  const user = await watcher()
  const [plain, flagged, later] = await raise(app, [change(user.watched, '2026-01'), change(user.watched, '2026-02', 2), change(user.watched, '2026-03')])
  // two workers' passes at once: one mail
  const [x, y] = await Promise.all([digest.sendDue(), digest.sendDue()])
  t.equal(x + y, 1, 'one of the two passes sent it')
  t.equal(mailsTo(user.email).length, 1)
  const [mail] = mailsTo(user.email)
  t.match(mail.subject, /^New red flags on your watched reports \(3 alerts\)$/)
  const text = mail.text
  const red = text.indexOf('New red flags\n')
  const otherChanges = text.indexOf('Other changes\n')
  t.ok(red >= 0 && otherChanges > red, 'the red flags section, then the other changes')
  const at = (month: string) => text.indexOf(`${month}:`)
  t.ok(at(flagged.alert.month) > red && at(flagged.alert.month) < otherChanges, 'the alert with red flags is in the first section')
  t.ok(at(plain.alert.month) > otherChanges && at(later.alert.month) > at(plain.alert.month), 'then the others, in order')
  t.match(text, `red flags: ${flagged.alert.newRedFlags.map((i) => i.name).join(', ')}`, 'the red flags named')
  t.match(text, `${PUBLIC_URL}/#/report/${user.watched.reportId}`, 'the report\'s page in the dashboard')
  const token = TOKEN.exec(text)?.[1]
  t.ok(token, 'the unsubscribe link')
  t.match(unfolded(mail.raw), new RegExp(`^List-Unsubscribe: <${PUBLIC_URL.replace(/\./g, '\\.')}/api/v1/alerts/mail/unsubscribe/${token}>`, 'm'), 'RFC 8058 List-Unsubscribe')
  t.match(unfolded(mail.raw), /^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m)
  const marked = await app.database.db.select({ mailedAt: alerts.mailedAt }).from(alerts).where(eq(alerts.userId, user.userId))
  t.ok(marked.every((r) => r.mailedAt !== null), 'the listed alerts are marked')

  // more alerts within the interval: no mail; after it, one mail with only those
  await raise(app, [change(user.watched, '2026-04'), change(user.watched, '2026-05')])
  clock += 23 * HOUR
  t.equal(await digest.sendDue(), 0, 'within the interval: no mail')
  clock += 2 * HOUR
  t.equal(await digest.sendDue(), 1, 'after it: the next digest')
  const second = mailsTo(user.email)[1]
  t.match(second.subject, /^Changes on your watched reports \(2 alerts\)$/)
  t.notMatch(second.text, '2026-01:', 'nothing mailed before is listed again')
  t.match(second.text, '2026-05:')
  clock += 25 * HOUR
  t.equal(await digest.sendDue(), 0, 'no new alert: no mail')
})

t.test('the unsubscribe link: the page does nothing by itself; its POST, without a session, stops the digest', async (t) => {
  const user = await watcher()
  await raise(app, [change(user.watched, '2026-01', 1)])
  await digest.sendDue()
  const token = TOKEN.exec(mailsTo(user.email)[0].text)![1]
  // the token stops a digest without a sign-in: no log line may carry it (checked when the app closes)
  logCapture(app)!.secret(token)

  const page = await app.inject({ url: `/unsubscribe/${token}` })
  t.equal(page.statusCode, 200, 'the link opens the dashboard\'s page')
  t.match(page.headers['content-type'], /^text\/html/)
  t.equal(page.headers['referrer-policy'], 'no-referrer')
  const before = await app.inject({ url: '/api/v1/alerts/mail', headers: user.auth })
  t.same(before.json(), { digest: true }, 'opening the link unsubscribed nothing')

  const res = await unsubscribe(token)
  t.equal(res.statusCode, 200)
  t.same(res.json(), { digest: false })
  const [row] = await app.database.db.select().from(alertMail).where(eq(alertMail.userId, user.userId))
  t.ok(row.unsubscribedAt, 'alert_mail.unsubscribed_at is set')
  t.same((await unsubscribe(token)).json(), { digest: false }, 'again: the same answer')
  t.same((await app.inject({ url: '/api/v1/alerts/mail', headers: user.auth })).json(), { digest: false })

  await raise(app, [change(user.watched, '2026-02', 1)])
  clock += 25 * HOUR
  await digest.sendDue()
  t.equal(mailsTo(user.email).length, 1, 'no digest after unsubscribing')

  // the account's own setting turns it back on
  const on = await app.inject({ method: 'PUT', url: '/api/v1/alerts/mail', headers: user.auth, payload: { digest: true } })
  t.same(on.json(), { digest: true })
  await digest.sendDue()
  t.equal(mailsTo(user.email).length, 2, 'on again: the alerts not mailed yet come')
  t.match(mailsTo(user.email)[1].text, '2026-02:')
})

t.test('the one-click unsubscribe of a mail client (RFC 8058): a form POST to the List-Unsubscribe URL', async (t) => {
  const user = await watcher()
  await raise(app, [change(user.watched, '2026-01')])
  clock += 25 * HOUR
  await digest.sendDue()
  const url = /^List-Unsubscribe: <https:\/\/pir\.example\.test(\/api\/v1\/alerts\/mail\/unsubscribe\/[^>]+)>/m.exec(unfolded(mailsTo(user.email)[0].raw))![1]
  logCapture(app)!.secret(url.split('/').at(-1)!)
  const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { digest: false })
  t.same((await app.inject({ url: '/api/v1/alerts/mail', headers: user.auth })).json(), { digest: false })
})

t.test('a bad or tampered token is 400 in the GeneralError shape, and unsubscribes no one', async (t) => {
  const user = await watcher()
  const other = await watcher()
  const token = app.services.unsubscribeTokens.sign(user.userId)
  const [id, issued, mac] = token.split('.')
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1)
  // the mac of another purpose under the same derived key, and one under the configured secret itself
  const derived = Buffer.from(hkdfSync('sha256', Buffer.from(app.config.mfa.encryptionKey), Buffer.alloc(0), 'pir alert digest unsubscribe v1', 32))
  const otherPurpose = createHmac('sha256', derived).update(`account-delete:${user.userId}:${issued}`).digest('base64url')
  const rawKey = createHmac('sha256', app.config.mfa.encryptionKey).update(`alert-digest-unsubscribe:${user.userId}:${issued}`).digest('base64url')
  const cases: Array<[string, string]> = [
    ['the mac tampered', `${id}.${issued}.${flip(mac, 5)}`],
    ['the mac\'s last character', `${id}.${issued}.${flip(mac, 42)}`],
    ['another user\'s id with this mac', `${other.userId}.${issued}.${mac}`],
    ['a later issue time with this mac', `${id}.${Number(issued) + 86400}.${mac}`],
    ['the issue time with a leading zero', `${id}.0${issued}.${mac}`],
    ['an upper-case user id', `${id.toUpperCase()}.${issued}.${mac}`],
    ['a mac for another purpose', `${id}.${issued}.${otherPurpose}`],
    ['a mac under the undrived secret', `${id}.${issued}.${rawKey}`],
    ['no mac', `${id}.${issued}`],
    ['no issue time', `${id}.${mac}`],
    ['a part too many', `${token}.x`],
    ['garbage', 'not-a-token']
  ]
  for (const [what, bad] of cases) {
    const res = await unsubscribe(bad)
    t.equal(res.statusCode, 400, what)
    t.has(res.json(), { code: 400, message: 'invalid unsubscribe link' }, `${what}: GeneralError`)
    const oneClick = await app.inject({ method: 'POST', url: `/api/v1/alerts/mail/unsubscribe/${encodeURIComponent(bad)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' })
    t.equal(oneClick.statusCode, 400, `${what}: one-click too`)
  }
  for (const u of [user, other]) t.same((await app.inject({ url: '/api/v1/alerts/mail', headers: u.auth })).json(), { digest: true }, 'still subscribed')
})

const oneClick = (token: string) => app.inject({
  method: 'POST', url: `/api/v1/alerts/mail/unsubscribe/${encodeURIComponent(token)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click'
})
const digestOf = async (user: { auth: Record<string, string> }) => (await app.inject({ url: '/api/v1/alerts/mail', headers: user.auth })).json().digest as boolean

t.test('an unsubscribe link works for 90 days from its mail, then answers 404 and unsubscribes no one', async (t) => {
  const early = await watcher()
  const late = await watcher()
  const earlyToken = app.services.unsubscribeTokens.sign(early.userId)
  const lateToken = app.services.unsubscribeTokens.sign(late.userId)
  logCapture(app)!.secret(earlyToken)
  logCapture(app)!.secret(lateToken)
  clock += 89 * DAY
  t.same((await unsubscribe(earlyToken)).json(), { digest: false }, 'on day 89 the link works')
  clock += DAY + 1000
  const expired = { status: 404, body: { code: 404, message: 'unsubscribe link expired', reason: 'not_found' } }
  for (const [what, res] of [['the page\'s POST', await unsubscribe(lateToken)], ['the one-click POST', await oneClick(lateToken)]] as const) {
    t.same({ status: res.statusCode, body: res.json() }, expired, `90 days and a second after: ${what} is 404`)
  }
  t.equal(await digestOf(late), true, 'and the digest is still on')
  t.equal((await app.inject({ url: `/unsubscribe/${lateToken}` })).statusCode, 200, 'the link still opens the page, which says so')

  // a link of the earlier form, which carried no issue time: genuine, but expired
  const derived = Buffer.from(hkdfSync('sha256', Buffer.from(app.config.mfa.encryptionKey), Buffer.alloc(0), 'pir alert digest unsubscribe v1', 32))
  const earlier = `${late.userId}.${createHmac('sha256', derived).update(`alert-digest-unsubscribe:${late.userId}`).digest('base64url')}`
  logCapture(app)!.secret(earlier)
  const res = await unsubscribe(earlier)
  t.same({ status: res.statusCode, body: res.json() }, expired, 'a link without an issue time is expired')
  t.equal(await digestOf(late), true)
})

t.test('the unsubscribe link of a deleted account: 404, never a 5xx, and no row for it', async (t) => {
  const user = await watcher()
  await raise(app, [change(user.watched, '2026-01', 1)])
  clock += 25 * HOUR
  await digest.sendDue()
  const token = TOKEN.exec(mailsTo(user.email)[0].text)![1]
  logCapture(app)!.secret(token)
  const removed = await app.inject({ method: 'DELETE', url: '/api/v1/auth/account', headers: user.auth, payload: { password: user.password } })
  t.equal(removed.statusCode, 204, 'the account is deleted')
  const gone = { status: 404, body: { code: 404, message: 'unsubscribe link of an account that no longer exists', reason: 'not_found' } }
  for (const [what, res] of [['the page\'s POST', await unsubscribe(token)], ['the one-click POST', await oneClick(token)]] as const) {
    t.same({ status: res.statusCode, body: res.json() }, gone, what)
  }
  t.equal((await app.inject({ url: `/unsubscribe/${token}` })).statusCode, 200, 'the link opens the page')
  t.same(await app.database.db.select().from(alertMail).where(eq(alertMail.userId, user.userId)), [], 'no alert_mail row names the deleted account')
})

t.test('GET/PUT /alerts/mail need a signed-in user', async (t) => {
  t.equal((await app.inject({ url: '/api/v1/alerts/mail' })).statusCode, 401)
  t.equal((await app.inject({ method: 'PUT', url: '/api/v1/alerts/mail', payload: { digest: false } })).statusCode, 401)
  const user = await watcher()
  t.equal((await app.inject({ method: 'PUT', url: '/api/v1/alerts/mail', headers: user.auth, payload: { digest: 'no' } })).statusCode, 400)
  t.same((await app.inject({ method: 'PUT', url: '/api/v1/alerts/mail', headers: user.auth, payload: { digest: false } })).json(), { digest: false })
})
