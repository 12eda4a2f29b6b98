// A disabled account (docs/operations.md, Support → Actions) on every way in and every way out: a
// Google sign-in and a passkey sign-in that prove the account's credential hear "account disabled"
// (and Google links nothing to it), a recovery link changes nothing, and its alert digest waits
// until the account is enabled, then goes. The password sign-in, the JWT, the key and the endpoint
// are test/staff/user-actions.test.ts.
import t from '../tap.ts'
import { GOOD_PASSWORD, signedInUser, uniqueEmail, type SignedInUser } from '../helper.ts'
import { buildMfaApp, type MfaApp } from '../mfa/support.ts'
import { staffMember, userIdOf, type StaffMember } from './support.ts'
import { startGoogleCerts, TEST_CLIENT_ID, type GoogleCertsPeer } from '../peers/google-certs.ts'
import { softAuthenticator } from '../passkeys/authenticator.ts'
import { change, raise, watchedReport } from '../watches/support.ts'
import { newLinkSecret } from '../../src/services/accounts/link-secrets.ts'
import type { Mail } from '../../src/services/accounts/mail.ts'

const DISABLED = { status: 'error', fieldError: { field: 'email', message: 'account disabled' } }
const PUBLIC_URL = 'https://localhost:8443'

const mails: Mail[] = []
let m: MfaApp
let peer: GoogleCertsPeer
let support: StaffMember
t.before(async () => {
  peer = await startGoogleCerts()
  t.teardown(() => peer.close())
  const record = (mail: Mail) => { mails.push(mail) }
  m = await buildMfaApp(t, { RATE_LIMIT_SIGNUP_IP: '1000', RATE_LIMIT_SIGNIN_IP: '1000', PUBLIC_URL, GOOGLE_CLIENT_IDS: TEST_CLIENT_ID, GOOGLE_CERTS_URL: peer.url },
    { mail: { send: async (mail: Mail) => { record(mail) }, sendLater: record, close: async () => {} } })
  support = await staffMember(m, 'support')
})

const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
  m.app.inject({ method: 'POST', url: `/api/v1${url}`, headers, payload })
const disable = async (id: string) => {
  const res = await post(`/admin/users/${id}/disable`, { reason: 'abuse' }, support.auth)
  if (res.statusCode !== 200) throw new Error(`disable refused: ${res.body}`)
}
const enable = async (id: string) => {
  const res = await post(`/admin/users/${id}/enable`, { reason: 'cleared' }, support.auth)
  if (res.statusCode !== 200) throw new Error(`enable refused: ${res.body}`)
}
const idp = (claims: Record<string, unknown>) => post('/auth/idp', { clientId: TEST_CLIENT_ID, credential: peer.idToken(claims), select_by: 'btn', token: true })
let subSeq = 0
const newSub = () => `2${String(process.pid).padStart(8, '0')}${String(++subSeq).padStart(10, '0')}`

t.test('Google sign-in: account disabled, to a linked account and to one it would link, which stays unlinked', async (t) => {
  const email = uniqueEmail('google')
  const sub = newSub()
  const first = await idp({ sub, email })
  t.equal(first.json().status, 'success', 'a Google account')
  await disable(await userIdOf(m, email))
  t.same((await idp({ sub, email })).json(), DISABLED, 'its Google sign-in: account disabled')

  const user = await signedInUser(m.app)
  const id = await userIdOf(m, user.email)
  await disable(id)
  t.same((await idp({ sub: newSub(), email: user.email })).json(), DISABLED, 'an account Google would link to: account disabled')
  const [row] = await m.app.database.query<{ google_sub: string | null }>('select google_sub from users where id = $1', [id])
  t.equal(row.google_sub, null, 'and nothing linked')
  await enable(id)
})

t.test('passkey sign-in: account disabled (403, as every refusal there), no session', async (t) => {
  const user = await signedInUser(m.app)
  const id = await userIdOf(m, user.email)
  const key = softAuthenticator({ id: 'localhost', origin: PUBLIC_URL })
  const options = await m.app.inject({ method: 'POST', url: '/api/v1/auth/passkeys/register/options', headers: user.auth })
  const registered = await post('/auth/passkeys/register/verify', { response: key.register(options.json()) }, user.auth)
  t.equal(registered.statusCode, 201)
  await disable(id)
  const [{ n: before }] = await m.app.database.query<{ n: number }>('select count(*)::int as n from sessions where user_id = $1', [id])
  const signin = await post('/auth/passkeys/signin/verify', { response: key.assert((await post('/auth/passkeys/signin/options', {})).json()), token: true })
  t.equal(signin.statusCode, 403)
  t.match(signin.json(), { code: 403, message: 'account disabled' })
  const [{ n: after }] = await m.app.database.query<{ n: number }>('select count(*)::int as n from sessions where user_id = $1', [id])
  t.equal(after, before, 'no session written')
  await enable(id)
  const back = await post('/auth/passkeys/signin/verify', { response: key.assert((await post('/auth/passkeys/signin/options', {})).json()), token: true })
  t.equal(back.json().status, 'success', 'enabled: the passkey signs in')
})

t.test('a recovery link of a disabled account changes nothing', async (t) => {
  const user: SignedInUser = await signedInUser(m.app)
  const id = await userIdOf(m, user.email)
  const { secret, hash } = newLinkSecret()
  await m.app.database.query("insert into auth_tokens (hash, kind, user_id, expires_at) values ($1, 'recovery', $2, now() + interval '1 hour')", [hash, id])
  await disable(id)
  const [before] = await m.app.database.query('select password_hash, credential_version from users where id = $1', [id])
  t.same((await m.app.inject({ url: `/api/v1/auth/recovery/${secret}` })).json(), DISABLED, 'its check says so')
  t.same((await post(`/auth/recovery/${secret}`, { password: 'a brand new passphrase 42' })).json(), DISABLED, 'its reset too')
  t.same((await m.app.database.query('select password_hash, credential_version from users where id = $1', [id]))[0], before, 'the password is as it was')
  await enable(id)
  t.equal((await post(`/auth/recovery/${secret}`, { password: 'a brand new passphrase 42' })).json().status, 'success', 'enabled: the link works')
  t.equal((await post('/auth/signin', { email: user.email, password: GOOD_PASSWORD })).json().status, 'error', 'the old password is gone')
})

t.test('the alert digest of a disabled account waits, and goes once it is enabled', async (t) => {
  const user = await signedInUser(m.app)
  const id = await userIdOf(m, user.email)
  const watched = await watchedReport(m.app, id)
  await raise(m.app, [change(watched, '2026-01', 1)])
  await disable(id)
  const digests = () => mails.filter((x) => x.to === user.email && /watched reports/.test(x.subject))
  await m.app.services.alertDigest.sendDue()
  t.equal(digests().length, 0, 'held while disabled')
  const [{ n }] = await m.app.database.query<{ n: number }>('select count(*)::int as n from alerts where user_id = $1 and mailed_at is null', [id])
  t.equal(n, 1, 'the alert waits, unmailed')
  await enable(id)
  await m.app.services.alertDigest.sendDue()
  t.equal(digests().length, 1, 'enabled: the digest goes')
})

t.test('a disabled account gets the notices of staff actions only', async (t) => {
  const user = await signedInUser(m.app)
  const id = await userIdOf(m, user.email)
  await disable(id)
  const notices = () => mails.filter((x) => x.to === user.email && x.subject.startsWith('Security notice'))
  t.equal(notices().length, 1, 'the disable\'s notice')
  await m.app.services.notices.send(id, { what: 'Your password was changed', ip: '203.0.113.9', userAgent: 'curl/8' })
  await m.app.services.notices.send(id, { what: 'Staff did something', byStaff: { reason: 'a reason' } })
  t.same(notices().map((x) => x.subject), ['Security notice: Your account was disabled: its sessions ended, its API keys were revoked and its webhook endpoints disabled',
    'Security notice: Staff did something'], 'a notice of its own events is held')
})
