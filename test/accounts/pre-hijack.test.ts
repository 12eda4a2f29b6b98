// Pre-hijacking closed (docs/decisions/accounts.md, Account control): a password is proven by a
// recovery link, by a confirmation opened in a browser signed in to the account with it, or by a
// change made from a proven session. When Google is linked to an account whose password is
// unproven, the password stops signing in, every password session ends, Google sessions go on, and
// the mailbox is told. A proven password stays. One app for the file; Google ID tokens from the
// local certificate peer; mail to a local SMTP peer.
import t from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, GOOD_PASSWORD, sessionCookie, uniqueEmail } from '../helper.ts'
import { startGoogleCerts, TEST_CLIENT_ID, type GoogleCertsPeer } from '../peers/google-certs.ts'
import { startSmtp, type SmtpPeer } from '../peers/smtp.ts'
import { FAST_ARGON2, info } from './support.ts'

const NEW_PASSWORD = 'a password of the owner 42'
let app: FastifyInstance
let google: GoogleCertsPeer
let smtp: SmtpPeer
let subSeq = 0
const newSub = () => `3${String(process.pid).padStart(8, '0')}${String(++subSeq).padStart(10, '0')}`

t.before(async () => {
  google = await startGoogleCerts()
  t.teardown(() => google.close())
  smtp = await startSmtp(t)
  app = await build(t, { ...FAST_ARGON2, SMTP_URL: smtp.url, GOOGLE_CLIENT_IDS: TEST_CLIENT_ID, GOOGLE_CERTS_URL: google.url, PUBLIC_URL: 'https://reports.example' })
})

const post = (url: string, payload?: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) })
const proven = async (email: string) => (await app.database.query<{ p: boolean }>('select password_proven as p from users where email = $1', [email]))[0].p
const linkGoogle = (email: string, sub = newSub()) => post('/auth/idp', { clientId: TEST_CLIENT_ID, select_by: 'btn', token: true, credential: google.idToken({ sub, email }) })
const signin = (email: string, password: string) => post('/auth/signin', { email, password, token: true })

/** sign up (the confirmation link is mailed) and return the link's secret */
async function signupWithLink (email: string, password = GOOD_PASSWORD): Promise<string> {
  const res = await post('/auth/signup', { email, password, token: 'captcha' })
  t.same(res.json(), { status: 'success' })
  const mail = await smtp.waitFor((m) => m.to.includes(email) && m.subject === 'Confirm your e-mail address')
  return /\/confirm\/([A-Za-z0-9_-]{43})/.exec(mail.text)![1]
}

t.test('a squatter registers the address and the owner confirms it from their own browser: still unproven, and Google linking removes it', async (t) => {
  const email = uniqueEmail('victim')
  const secret = await signupWithLink(email, 'the squatter password 1')
  const squatter = await signin(email, 'the squatter password 1')
  t.equal(squatter.json().status, 'success')

  // the owner clicks the mailed link in a browser with no session of this account
  t.same((await post(`/auth/confirm/${secret}`)).json(), { status: 'success' })
  t.equal(await proven(email), false, 'confirmed, but the password is not proven')

  const before = smtp.mails.length
  const linked = await linkGoogle(email)
  t.equal(linked.json().status, 'success', 'the owner signs in with Google')
  t.match((await info(app, linked.json().token)).json(), { confirmed: true, hasPassword: false, idp: { google: true } })
  t.equal((await info(app, squatter.json().token)).statusCode, 401, "the squatter's session ended")
  t.equal((await signin(email, 'the squatter password 1')).json().status, 'error', "the squatter's password no longer signs in")
  t.equal((await info(app, linked.json().token)).statusCode, 200, 'the Google session goes on')
  const mail = await smtp.waitFor((m) => smtp.mails.indexOf(m) >= before && m.to.includes(email) && m.subject === 'Security notice: Your account was linked to a Google account')
  t.match(mail.text, /signs in with Google only\. Its password had never been confirmed from this mailbox, so it was removed/)
  const kinds = (await app.database.query<{ kind: string }>('select kind from audit_events a join users u on u.id = a.user_id where u.email = $1 order by a.id', [email])).map((r) => r.kind)
  t.ok(kinds.includes('password.removed'), 'the removal is audited')

  // linking again later (a Google session signs in) removes nothing more and mails nothing more
  const count = smtp.mails.length
  t.equal((await linkGoogle(email, undefined as never)).json().status, 'error', 'another Google account cannot take the address')
  t.equal(smtp.mails.length, count)
})

t.test('confirmed in the browser that signed in with the password: proven, and Google linking keeps it', async (t) => {
  const email = uniqueEmail('owner')
  const secret = await signupWithLink(email)
  const signed = await signin(email, GOOD_PASSWORD)
  const cookie = sessionCookie(signed)!
  t.same((await post(`/auth/confirm/${secret}`, undefined, { cookie })).json(), { status: 'success' })
  t.equal(await proven(email), true, 'proven by the link opened in the signed-in browser')

  const linked = await linkGoogle(email)
  t.equal(linked.json().status, 'success')
  t.match((await info(app, linked.json().token)).json(), { hasPassword: true, idp: { google: true } })
  t.equal((await signin(email, GOOD_PASSWORD)).json().status, 'success', 'the password still signs in')
  t.equal((await info(app, signed.json().token)).statusCode, 200, 'and its session goes on')
})

t.test('a session of another account, or a Google session, proves nothing at confirmation', async (t) => {
  const email = uniqueEmail('mixed')
  const secret = await signupWithLink(email)
  const otherEmail = uniqueEmail('other')
  await signupWithLink(otherEmail)
  const other = await signin(otherEmail, GOOD_PASSWORD)
  t.same((await post(`/auth/confirm/${secret}`, undefined, { cookie: sessionCookie(other)! })).json(), { status: 'success' })
  t.equal(await proven(email), false, "another account's session")
  t.equal(await proven(otherEmail), false, 'nor is the other account proven by it')
})

t.test('a recovery link proves the password it sets', async (t) => {
  const email = uniqueEmail('recovered')
  await signupWithLink(email, 'the squatter password 2')
  const before = smtp.mails.length
  t.same((await post('/auth/recovery', { email })).json(), { status: 'success' })
  const mail = await smtp.waitFor((m) => smtp.mails.indexOf(m) >= before && m.to.includes(email) && /\/recovery\//.test(m.text))
  const secret = /\/recovery\/([A-Za-z0-9_-]{43})/.exec(mail.text)![1]
  t.same((await post(`/auth/recovery/${secret}`, { password: NEW_PASSWORD })).json(), { status: 'success', revoked: { apiKeys: 0, webhooks: [] } })
  t.equal(await proven(email), true)
  const linked = await linkGoogle(email)
  t.match((await info(app, linked.json().token)).json(), { hasPassword: true })
  t.equal((await signin(email, NEW_PASSWORD)).json().status, 'success', 'the recovered password stays after linking')
})

t.test('POST /auth/password: proven from a proven or Google session, unproven from an unproven one', async (t) => {
  // the squatter changes their own unproven password: still unproven
  const email = uniqueEmail('changer')
  await signupWithLink(email, 'the squatter password 3')
  const squatter = await signin(email, 'the squatter password 3')
  const auth = { authorization: `Bearer ${squatter.json().token}` }
  t.same((await post('/auth/password', { currentPassword: 'the squatter password 3', newPassword: 'the squatter password 4' }, auth)).json(), { status: 'success' })
  t.equal(await proven(email), false, 'changed from an unproven session: unproven')

  // the owner proves it by recovery, then changes it from a password session: proven stays proven
  const before = smtp.mails.length
  await post('/auth/recovery', { email })
  const mail = await smtp.waitFor((m) => smtp.mails.indexOf(m) >= before && m.to.includes(email) && /\/recovery\//.test(m.text))
  await post(`/auth/recovery/${/\/recovery\/([A-Za-z0-9_-]{43})/.exec(mail.text)![1]}`, { password: NEW_PASSWORD })
  const owner = await signin(email, NEW_PASSWORD)
  t.same((await post('/auth/password', { currentPassword: NEW_PASSWORD, newPassword: 'yet another owner password 5' }, { authorization: `Bearer ${owner.json().token}` })).json(), { status: 'success' })
  t.equal(await proven(email), true, 'changed from a proven session: proven')

  // a Google session of an account with a password: its change is proven
  const gEmail = uniqueEmail('google-changer')
  const secret = await signupWithLink(gEmail)
  const pw = await signin(gEmail, GOOD_PASSWORD)
  await post(`/auth/confirm/${secret}`, undefined, { cookie: sessionCookie(pw)! })
  const g = await linkGoogle(gEmail)
  await app.database.query('update users set password_proven = false where email = $1', [gEmail])
  t.same((await post('/auth/password', { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD }, { authorization: `Bearer ${g.json().token}` })).json(), { status: 'success' })
  t.equal(await proven(gEmail), true, 'changed from a Google session: proven')
})
