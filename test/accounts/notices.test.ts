// Security notices (docs/security.md, Notices): a mail to the account's own address, through the one
// mail path (a local SMTP server here), on a password change or reset, an authenticator app or a
// passkey added or removed, an API key created, a webhook endpoint added, Google linked or unlinked,
// and a sign-in from a device the account has not used for 90 days. Each names what, when, the
// device and the IP address and links the account page; none carries a secret. Each is sent once: a
// test counts the mails after closing its app, when every mail it accepted has been delivered. The
// new-device notice is not sent for the account's first sign-in, nor for a known device, nor when
// turned off; it is sent again for a device last seen over 90 days ago (the app's clock moved), and
// for an account with a second factor only once that factor is proved.
import t, { type Test } from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, GOOD_PASSWORD, registeredUser, uniqueEmail } from '../helper.ts'
import { newLinkSecret } from '../../src/services/accounts/link-secrets.ts'
import { NOTICE } from '../../src/services/notices/what.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'
import { startSmtp, type ReceivedMail, type SmtpPeer } from '../peers/smtp.ts'
import { startGoogleCerts, TEST_CLIENT_ID, type GoogleCertsPeer } from '../peers/google-certs.ts'
import { softAuthenticator } from '../passkeys/authenticator.ts'

const PUBLIC_URL = 'https://localhost:8443'
const RP = { id: 'localhost', origin: PUBLIC_URL }
const NEW_PASSWORD = 'a brand new passphrase 42'
const RESET_PASSWORD = 'yet another passphrase 77'
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'
const SAFARI = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15'
const DAY_MS = 24 * 3600 * 1000

let smtp: SmtpPeer
let google: GoogleCertsPeer
t.before(async () => {
  smtp = await startSmtp(t)
  google = await startGoogleCerts()
  t.teardown(() => google.close())
})

/** an app of its own with a clock the test moves; close() delivers every mail it accepted */
async function noticeApp (t: Test) {
  const clock = { shift: 0 }
  const now = () => Date.now() + clock.shift
  const app = await build(t, {
    PUBLIC_URL, SMTP_URL: smtp.url, GOOGLE_CLIENT_IDS: TEST_CLIENT_ID, GOOGLE_CERTS_URL: google.url,
    RATE_LIMIT_SIGNIN_IP: '1000', RATE_LIMIT_SIGNIN_EMAIL: '100', RATE_LIMIT_SIGNUP_IP: '1000'
  }, { now })
  return { app, now, clock }
}

type Device = { ua: string, ip: string }
const CHROME_HOME: Device = { ua: CHROME, ip: '203.0.113.7' }

const call = (app: FastifyInstance, device: Device, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token?: string, payload?: object) =>
  app.inject({
    method, url: `/api/v1${url}`, remoteAddress: device.ip,
    headers: { 'user-agent': device.ua, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(payload === undefined ? {} : { payload })
  })

async function signIn (app: FastifyInstance, device: Device, email: string, password = GOOD_PASSWORD) {
  const res = await call(app, device, 'POST', '/auth/signin', undefined, { email, password, token: true })
  const body = res.json() as { status: string, token?: string, mfaRequired?: boolean }
  if (body.status !== 'success') throw new Error(`sign-in refused: ${res.body}`)
  return body
}

/** the security notices the account's address received */
const noticesTo = (email: string) => smtp.to(email).filter((m) => m.subject.startsWith('Security notice: '))
const titled = (mails: ReceivedMail[], what: string) => mails.filter((m) => m.subject === `Security notice: ${what}`)

async function withRecoveryLink (app: FastifyInstance, email: string): Promise<string> {
  const { secret, hash } = newLinkSecret()
  await app.database.query(`insert into auth_tokens (hash, kind, user_id, expires_at)
    select $1, 'recovery', id, now() + interval '1 hour' from users where email = $2`, [hash, email])
  return secret
}

t.test('each event mails one notice naming what, when, the device and the IP address, and never a secret', async (t) => {
  const { app, now, clock } = await noticeApp(t)
  const email = uniqueEmail('notices')
  const up = await call(app, CHROME_HOME, 'POST', '/auth/signup', undefined, { email, password: GOOD_PASSWORD, token: 'captcha' })
  t.equal(up.json().status, 'success')
  // proven, as a password confirmed from the mailbox is: linking Google keeps it
  // (docs/decisions/accounts.md, Account control)
  await app.database.query('update users set password_proven = true where email = $1', [email])
  let token = (await signIn(app, CHROME_HOME, email)).token!

  const key = await call(app, CHROME_HOME, 'POST', '/auth/api-keys', token, { name: 'nightly export', scopes: ['reports:read'] })
  t.equal(key.statusCode, 201)
  const hook = await call(app, CHROME_HOME, 'POST', '/webhooks', token, { url: 'http://127.0.0.1:9/private-path?token=hook-url-secret', events: ['report.ready'] })
  t.equal(hook.statusCode, 201)

  const begun = await call(app, CHROME_HOME, 'POST', '/auth/mfa/totp', token)
  const totpSecret = begun.json().secret as string
  const confirmed = await call(app, CHROME_HOME, 'POST', '/auth/mfa/totp/confirm', token, { code: codeAt(totpSecret, now()) })
  t.equal(confirmed.json().status, 'success')
  token = confirmed.json().token
  const recoveryCodes = confirmed.json().recoveryCodes as string[]

  const authenticator = softAuthenticator(RP)
  const options = await call(app, CHROME_HOME, 'POST', '/auth/passkeys/register/options', token)
  const added = await call(app, CHROME_HOME, 'POST', '/auth/passkeys/register/verify', token, { response: authenticator.register(options.json()), name: 'Laptop' })
  t.equal(added.statusCode, 201)
  t.equal((await call(app, CHROME_HOME, 'DELETE', `/auth/passkeys/${added.json().id as string}`, token, {})).statusCode, 204)

  clock.shift += 30_000
  const removed = await call(app, CHROME_HOME, 'DELETE', '/auth/mfa/totp', token, { code: codeAt(totpSecret, now()) })
  t.equal(removed.statusCode, 200)
  token = removed.json().token

  // the Google sign-in links the account (from the same device: no new-device notice)
  const linked = await call(app, CHROME_HOME, 'POST', '/auth/idp', undefined,
    { clientId: TEST_CLIENT_ID, select_by: 'btn', credential: google.idToken({ sub: `sub-${email}`, email }) })
  t.equal(linked.json().status, 'success')
  t.equal((await call(app, CHROME_HOME, 'DELETE', '/auth/idp', token)).statusCode, 200)

  const changed = await call(app, CHROME_HOME, 'POST', '/auth/password', token, { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD })
  t.same(changed.json(), { status: 'success' })
  const reset = await call(app, CHROME_HOME, 'POST', `/auth/recovery/${await withRecoveryLink(app, email)}`, undefined, { password: RESET_PASSWORD })
  t.equal(reset.json().status, 'success')

  await app.close()
  const mails = noticesTo(email)
  const expected = [NOTICE.apiKeyCreated, NOTICE.webhookAdded, NOTICE.totpAdded, NOTICE.passkeyAdded, NOTICE.passkeyRemoved,
    NOTICE.totpRemoved, NOTICE.googleLinked, NOTICE.googleUnlinked, NOTICE.passwordChanged, NOTICE.passwordReset]
  for (const what of expected) t.equal(titled(mails, what).length, 1, `one notice: ${what}`)
  t.equal(mails.length, expected.length, 'and no other (the first sign-in and the Google sign-in from a known device are not new)')
  const secrets = [GOOD_PASSWORD, NEW_PASSWORD, RESET_PASSWORD, key.json().key as string, hook.json().secret as string, totpSecret, ...recoveryCodes,
    'private-path', 'hook-url-secret', token]
  for (const mail of mails) {
    t.match(mail.text, /^When: \d{4}-\d\d-\d\d \d\d:\d\d UTC$/m, `${mail.subject}: when`)
    t.match(mail.text, 'Device: Chrome on Linux', `${mail.subject}: the device`)
    t.match(mail.text, 'IP address: 203.0.113.7', `${mail.subject}: the address`)
    t.match(mail.text, `${PUBLIC_URL}/#/account`, `${mail.subject}: the account page`)
    for (const secret of secrets) t.notOk(`${mail.subject}\n${mail.text}`.includes(secret), `${mail.subject}: no secret in it`)
  }
  t.match(titled(mails, NOTICE.apiKeyCreated)[0].text, `"nightly export" (pir_${key.json().prefix as string}_…), scopes: reports:read`, 'the key by its name and prefix')
  t.match(titled(mails, NOTICE.webhookAdded)[0].text, 'sends events to 127.0.0.1:9', 'the endpoint by its host alone')
  t.match(titled(mails, NOTICE.passwordChanged)[0].text, /Every other session of the account was signed out[\s\S]*API key "nightly export"/,
    'the change says what kept working')
})

t.test('the new-device notice: not for the first sign-in, a known device or when turned off; again after 90 days', async (t) => {
  const { app, clock } = await noticeApp(t)
  const { email } = await registeredUser(app)
  const notices = () => titled(noticesTo(email), NOTICE.newDevice)
  const known = async () => (await app.database.query<{ device: string, ip_prefix: string }>(
    'select device, ip_prefix from known_devices where user_id = (select id from users where email = $1) order by device, ip_prefix', [email]))

  const first = await signIn(app, CHROME_HOME, email)
  t.same(await known(), [{ device: 'Chrome on Linux', ip_prefix: '203.0.113.0/24' }], 'the first sign-in records its device')
  t.same((await call(app, CHROME_HOME, 'GET', '/auth/notices', first.token)).json(), { newDevice: true }, 'on by default')
  await signIn(app, { ua: CHROME, ip: '203.0.113.200' }, email)
  const firefox = { ua: FIREFOX, ip: '198.51.100.4' }
  await signIn(app, firefox, email)
  await signIn(app, firefox, email)
  await signIn(app, { ua: CHROME, ip: '2001:db8:1:2::5' }, email)
  await signIn(app, { ua: CHROME, ip: '2001:db8:1:ff::9' }, email)
  t.same(await known(), [
    { device: 'Chrome on Linux', ip_prefix: '2001:db8:1::/48' }, { device: 'Chrome on Linux', ip_prefix: '203.0.113.0/24' },
    { device: 'Firefox on Windows', ip_prefix: '198.51.100.0/24' }
  ], 'a device is its name and its /24 or /48')

  const off = await call(app, firefox, 'PUT', '/auth/notices', first.token, { newDevice: false })
  t.same(off.json(), { newDevice: false })
  t.same((await call(app, firefox, 'GET', '/auth/notices', first.token)).json(), { newDevice: false })
  const safari = { ua: SAFARI, ip: '192.0.2.5' }
  const quiet = await signIn(app, safari, email)
  t.equal((await known()).length, 4, 'a sign-in with the notice off still records its device')
  t.same((await call(app, safari, 'PUT', '/auth/notices', quiet.token, { newDevice: true })).json(), { newDevice: true })
  await signIn(app, safari, email)

  // 91 days later, the first device is no longer known
  clock.shift += 91 * DAY_MS
  await signIn(app, CHROME_HOME, email)
  await signIn(app, CHROME_HOME, email)

  await app.close()
  const mails = notices()
  t.equal(mails.length, 3, 'Firefox, the IPv6 network and the first device again after 91 days')
  t.match(mails.map((m) => m.text).join('\n'), /Device: Firefox on Windows\nIP address: 198\.51\.100\.4/)
  t.match(mails.map((m) => m.text).join('\n'), /IP address: 2001:db8:1:2::5/)
  t.equal(mails.filter((m) => m.text.includes('IP address: 203.0.113.7')).length, 1, 'the first device once, after 91 days')
  t.equal(mails.filter((m) => m.text.includes('Safari')).length, 0, 'none while it was off, nor for that device after')
})

t.test('a sign-in completes, and is checked, where its last factor is proved', async (t) => {
  const { app, now, clock } = await noticeApp(t)
  const { email } = await registeredUser(app)
  let token = (await signIn(app, CHROME_HOME, email)).token!
  // an authenticator app and a passkey
  const secret = (await call(app, CHROME_HOME, 'POST', '/auth/mfa/totp', token)).json().secret as string
  token = (await call(app, CHROME_HOME, 'POST', '/auth/mfa/totp/confirm', token, { code: codeAt(secret, now()) })).json().token
  const authenticator = softAuthenticator(RP)
  const options = await call(app, CHROME_HOME, 'POST', '/auth/passkeys/register/options', token)
  t.equal((await call(app, CHROME_HOME, 'POST', '/auth/passkeys/register/verify', token, { response: authenticator.register(options.json()) })).statusCode, 201)
  const devices = async () => (await app.database.query<{ n: number }>(
    'select count(*)::int as n from known_devices where user_id = (select id from users where email = $1)', [email]))[0].n

  const firefox = { ua: FIREFOX, ip: '198.51.100.4' }
  const levelOne = await signIn(app, firefox, email)
  t.equal(levelOne.mfaRequired, true)
  t.equal(await devices(), 1, 'the password alone records nothing')
  clock.shift += 30_000
  const verified = await call(app, firefox, 'POST', '/auth/mfa/verify', levelOne.token, { code: codeAt(secret, now()) })
  t.equal(verified.json().status, 'success')
  t.equal(await devices(), 2, 'the second factor completes the sign-in: its device is recorded')

  const safari = { ua: SAFARI, ip: '192.0.2.5' }
  const challenge = (await call(app, safari, 'POST', '/auth/passkeys/signin/options')).json()
  const passkey = await call(app, safari, 'POST', '/auth/passkeys/signin/verify', undefined, { response: authenticator.assert(challenge) })
  t.equal(passkey.statusCode, 200, 'a passkey sign-in')
  t.equal(await devices(), 3)

  await app.close()
  const mails = titled(noticesTo(email), NOTICE.newDevice)
  t.equal(mails.length, 2, 'one for the sign-in completed by its code, one for the passkey sign-in')
  const texts = mails.map((m) => m.text).join('\n')
  t.match(texts, 'Device: Firefox on Windows\nIP address: 198.51.100.4')
  t.match(texts, 'Device: Safari on macOS\nIP address: 192.0.2.5')
})

t.test('the setting: GET and PUT /auth/notices take a person, a boolean and a fresh proof', async (t) => {
  const { app } = await noticeApp(t)
  const { email } = await registeredUser(app)
  const { token } = await signIn(app, CHROME_HOME, email)
  t.equal((await call(app, CHROME_HOME, 'GET', '/auth/notices')).statusCode, 401)
  t.equal((await call(app, CHROME_HOME, 'PUT', '/auth/notices', undefined, { newDevice: false })).statusCode, 401)
  for (const body of [{}, { newDevice: 'no' }, { newDevice: false, other: 1 }]) {
    t.equal((await call(app, CHROME_HOME, 'PUT', '/auth/notices', token, body)).statusCode, 400, JSON.stringify(body))
  }
  await app.database.query("update sessions set proved_at = now() - interval '1 hour' where user_id = (select id from users where email = $1)", [email])
  const stale = await call(app, CHROME_HOME, 'PUT', '/auth/notices', token, { newDevice: false })
  t.equal(stale.statusCode, 403, 'an hour after the sign-in, turning it off needs a fresh proof')
  t.equal(stale.json().reason, 'reauthentication_required')
  t.same((await call(app, CHROME_HOME, 'GET', '/auth/notices', token)).json(), { newDevice: true }, 'nothing changed')
})
