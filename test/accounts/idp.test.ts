// Google sign-in and unlinking: ID tokens signed here with the test's own RSA key,
// certificates served by a local peer (GOOGLE_CERTS_URL); create, match, link by e-mail, unlink and
// link again, every way a credential is refused, and nothing of a credential or of the library's error
// text in the logs. One app for the file; it logs at trace level into memory.
import t, { type Test } from '../tap.ts'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { OAuth2Client } from 'google-auth-library'
import { build, GOOD_PASSWORD, sessionCookie, signedInUser, uniqueEmail } from '../helper.ts'
import { loggerOptions } from '../../src/logger.ts'
import { createGoogleService } from '../../src/services/accounts/google.ts'
import { startGoogleCerts, TEST_CLIENT_ID, type GoogleCertsPeer } from '../peers/google-certs.ts'
import { startSmtp, type SmtpPeer } from '../peers/smtp.ts'

const FAILED = { status: 'error', fieldError: { field: 'email', message: 'Google sign-in failed' } }
const OTHER_CLIENT_ID = 'other-client.apps.googleusercontent.com'
const NEW_PASSWORD = 'a password set by recovery 9'

let peer: GoogleCertsPeer
let smtp: SmtpPeer
let app: FastifyInstance
const logLines: string[] = []
/** every credential refused in this file, and the library's own message for it */
const refused: Array<{ credential: string, email: string, libraryMessage: string }> = []

t.before(async () => {
  peer = await startGoogleCerts()
  t.teardown(() => peer.close())
  smtp = await startSmtp(t)
  app = await build(t, {
    GOOGLE_CLIENT_IDS: `${OTHER_CLIENT_ID},${TEST_CLIENT_ID}`,
    GOOGLE_CERTS_URL: peer.url,
    SMTP_URL: smtp.url,
    PUBLIC_URL: 'https://reports.example',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1'
  }, {
    // the service's own logger options (redaction, serializers), at the most talkative level
    fastify: { logger: { ...(loggerOptions('trace') as object), stream: { write: (line: string) => { logLines.push(line) } } } }
  })
})

let subSeq = 0
const newSub = () => `1${String(process.pid).padStart(8, '0')}${String(++subSeq).padStart(10, '0')}`

function idp (body: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/api/v1/auth/idp', payload: { clientId: TEST_CLIENT_ID, select_by: 'btn', ...body } })
}

async function info (token: string) {
  const res = await app.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${token}` } })
  return { statusCode: res.statusCode, body: res.json() }
}

const unlink = (token: string) => app.inject({ method: 'DELETE', url: '/api/v1/auth/idp', headers: { authorization: `Bearer ${token}` } })

const auditKinds = async (userId: string) =>
  (await app.database.query<{ kind: string }>('select kind from audit_events where user_id = $1 order by id', [userId])).map((r) => r.kind)

function expectSignedIn (t: Test, res: LightMyRequestResponse) {
  t.equal(res.statusCode, 200)
  t.equal(res.json().status, 'success', 'signed in')
  t.ok(sessionCookie(res), 'a session cookie is set')
}

/** the reasons logged for refused Google sign-ins, in order */
const loggedReasons = () => logLines.map((l) => JSON.parse(l) as { msg?: string, reason?: string })
  .filter((l) => l.msg === 'Google sign-in refused').map((l) => l.reason)

t.test('a new Google user, then the same user again; a JWT only when asked for', async (t) => {
  const sub = newSub()
  const email = uniqueEmail('google')

  const first = await idp({ credential: peer.idToken({ sub, email: email.toUpperCase() }), token: true, acquisition_code: 'spring-campaign' })
  expectSignedIn(t, first)
  t.equal(first.json().isNewUser, true, 'isNewUser on creation')
  t.type(first.json().token, 'string')
  const me = await info(first.json().token)
  t.equal(me.statusCode, 200)
  t.match(me.body, {
    email, confirmed: true, hasPassword: false, idp: { google: true }, acquisitionCode: 'spring-campaign', reportCredits: 1
  })

  const again = await idp({ credential: peer.idToken({ sub, email }), token: false })
  expectSignedIn(t, again)
  t.same(again.json(), { status: 'success', isNewUser: false }, 'the same user: not new, no token when token is false')
  const omitted = await idp({ credential: peer.idToken({ sub, email }) })
  expectSignedIn(t, omitted)
  t.same(omitted.json(), { status: 'success', isNewUser: false }, 'no token when token is absent')

  // the cookie of a token-less sign-in is a real session: refresh gives a JWT for the same account
  const refresh = await app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', headers: { cookie: sessionCookie(again)! } })
  t.equal(refresh.statusCode, 200)
  t.equal((await info(refresh.json().token)).body.id, me.body.id)

  // a new session id at every sign-in, even with the previous cookie sent along
  const third = await app.inject({
    method: 'POST', url: '/api/v1/auth/idp', headers: { cookie: sessionCookie(again)! },
    payload: { clientId: TEST_CLIENT_ID, select_by: 'btn', credential: peer.idToken({ sub, email }), token: true }
  })
  expectSignedIn(t, third)
  t.not(sessionCookie(third), sessionCookie(again))

  // matched by sub, not by e-mail: a changed Google address still reaches the same account
  const moved = await idp({ credential: peer.idToken({ sub, email: uniqueEmail('moved') }), token: true })
  t.equal(moved.json().isNewUser, false)
  t.equal((await info(moved.json().token)).body.id, me.body.id)

  const users = await app.database.query<{ n: number }>('select count(*)::int as n from users where google_sub = $1', [sub])
  t.equal(users[0].n, 1, 'one account')
  t.same((await auditKinds(me.body.id)).slice(0, 3), ['signup', 'idp.link', 'signin.success'])
})

t.test('an existing account with a proven password is linked by e-mail, keeps its password, unlinks, and is linked again', async (t) => {
  const user = await signedInUser(app)
  // proven as a recovery link or a confirmation in the signing-in browser proves it (test/accounts/pre-hijack.test.ts)
  await app.database.query('update users set confirmed_at = now(), password_proven = true where email = $1', [user.email])
  const sub = newSub()
  const credential = () => peer.idToken({ sub, email: user.email })

  const res = await idp({ credential: credential(), token: true, acquisition_code: 'ignored-on-link' })
  expectSignedIn(t, res)
  t.equal(res.json().isNewUser, false, 'linking is not creating')
  const me = await info(res.json().token)
  t.match(me.body, { email: user.email, hasPassword: true, idp: { google: true } })
  t.notOk('acquisitionCode' in me.body, 'linking does not set an acquisition code')

  const pw = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: user.password } })
  t.equal(pw.json().status, 'success', 'the password still signs in')
  t.equal((await info(user.token)).statusCode, 200, 'the existing sessions go on')

  // unlink (Bearer), with a password: Google is gone from info, the password stays
  const del = await unlink(user.token)
  t.equal(del.statusCode, 200)
  t.same(del.json(), { status: 'success' })
  t.match((await info(user.token)).body, { id: me.body.id, hasPassword: true, idp: { google: false } })
  t.same((await unlink(user.token)).json(), { status: 'success' }, 'unlinking an unlinked account is a no-op')
  const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password: user.password } })
  t.equal(signin.json().status, 'success', 'the password signs in after unlinking')

  // the same Google account afterwards: a fresh link by e-mail to the same account
  const relink = await idp({ credential: credential(), token: true })
  expectSignedIn(t, relink)
  t.equal(relink.json().isNewUser, false)
  t.match((await info(relink.json().token)).body, { id: me.body.id, hasPassword: true, idp: { google: true } })
  const kinds = (await auditKinds(me.body.id)).filter((k) => k.startsWith('idp.'))
  t.same(kinds, ['idp.link', 'idp.unlink', 'idp.link'], 'link, unlink and link again are audited')
})

t.test('linking to an unconfirmed account drops the password nobody proved (pre-hijacking)', async (t) => {
  const squatter = await signedInUser(app) // registered the address, never confirmed it
  const res = await idp({ credential: peer.idToken({ sub: newSub(), email: squatter.email }), token: true })
  expectSignedIn(t, res)
  t.equal(res.json().isNewUser, false)
  t.match((await info(res.json().token)).body, { confirmed: true, hasPassword: false, idp: { google: true } })
  t.equal((await info(squatter.token)).statusCode, 401, "the squatter's session is ended")
  const pw = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: squatter.email, password: squatter.password } })
  t.equal(pw.json().status, 'error', "the squatter's password no longer signs in")
})

t.test('a Google-only account cannot unlink until it has a password (set through recovery)', async (t) => {
  const sub = newSub()
  const email = uniqueEmail('only')
  const res = await idp({ credential: peer.idToken({ sub, email }), token: true })
  expectSignedIn(t, res)
  const token = res.json().token as string

  const del = await unlink(token)
  t.equal(del.statusCode, 409)
  t.has(del.json(), { code: 409, message: 'set a password before unlinking' })
  t.match((await info(token)).body, { hasPassword: false, idp: { google: true } }, 'still linked')
  for (const headers of [{}, { authorization: 'Bearer not-a-jwt' }]) {
    const anonymous = await app.inject({ method: 'DELETE', url: '/api/v1/auth/idp', headers })
    t.equal(anonymous.statusCode, 401)
    t.has(anonymous.json(), { code: 401, message: 'access denied' })
  }

  // recovery gives the account a password (and, as always, ends its sessions)
  const before = smtp.mails.length
  t.same((await app.inject({ method: 'POST', url: '/api/v1/auth/recovery', payload: { email } })).json(), { status: 'success' })
  const mail = await smtp.waitFor((m) => smtp.mails.indexOf(m) >= before && m.to.includes(email))
  const secret = /\/recovery\/([A-Za-z0-9_-]{43})/.exec(mail.text)![1]
  const set = await app.inject({ method: 'POST', url: `/api/v1/auth/recovery/${secret}`, payload: { password: NEW_PASSWORD } })
  t.same(set.json(), { status: 'success', revoked: { apiKeys: 0, webhooks: [] } })
  t.equal((await info(token)).statusCode, 401, 'the Google session ended with the password change')

  const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email, password: NEW_PASSWORD, token: true } })
  t.equal(signin.json().status, 'success')
  const pwToken = signin.json().token as string
  t.match((await info(pwToken)).body, { hasPassword: true, idp: { google: true } })
  const ok = await unlink(pwToken)
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), { status: 'success' })
  t.match((await info(pwToken)).body, { hasPassword: true, idp: { google: false } })

  const relink = await idp({ credential: peer.idToken({ sub, email }), token: true })
  expectSignedIn(t, relink)
  t.equal(relink.json().isNewUser, false, 'linked again by e-mail')
  t.match((await info(relink.json().token)).body, { email, hasPassword: true, idp: { google: true } })
})

t.test('every refused credential is the same HTTP 200 form error, and no account, no cookie', async (t) => {
  const email = uniqueEmail('refused')
  const now = Math.floor(Date.now() / 1000)
  const good = { sub: newSub(), email }
  const tampered = () => {
    const [h, , s] = peer.idToken(good).split('.')
    const payload = { iss: 'https://accounts.google.com', aud: TEST_CLIENT_ID, ...good, sub: newSub(), email_verified: true, iat: now, exp: now + 3600 }
    return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`
  }
  const cases: Array<[string, string, Record<string, unknown>]> = [
    ['wrong aud', 'audience', { credential: peer.idToken({ ...good, aud: 'someone-else.apps.googleusercontent.com' }) }],
    ['aud of another configured client', 'audience', { credential: peer.idToken(good), clientId: OTHER_CLIENT_ID }],
    ['clientId not configured', 'client-id', { credential: peer.idToken({ ...good, aud: 'unknown.apps.googleusercontent.com' }), clientId: 'unknown.apps.googleusercontent.com' }],
    ['expired', 'expired', { credential: peer.idToken({ ...good, iat: now - 7200, exp: now - 3600 }) }],
    ['issued in the future', 'not-yet-valid', { credential: peer.idToken({ ...good, iat: now + 3600, exp: now + 7200 }) }],
    ['lifetime over a day', 'lifetime', { credential: peer.idToken({ ...good, exp: now + 3 * 86400 }) }],
    ['wrong issuer', 'issuer', { credential: peer.idToken({ ...good, iss: 'https://evil.example.com' }) }],
    ['universe-domain issuer', 'issuer', { credential: peer.idToken({ ...good, iss: 'googleapis.com' }) }],
    ['bad signature', 'signature', { credential: peer.idToken(good, { foreignKey: true }) }],
    ['payload altered after signing', 'signature', { credential: tampered() }],
    ['unknown kid', 'unknown-key', { credential: peer.idToken(good, { kid: 'no-such-key' }) }],
    ['email_verified false', 'email-unverified', { credential: peer.idToken({ ...good, email_verified: false }) }],
    ['email_verified missing', 'email-unverified', { credential: peer.idToken({ ...good, email_verified: undefined }) }],
    ['no email', 'claims', { credential: peer.idToken({ ...good, email: undefined }) }],
    ['no sub', 'claims', { credential: peer.idToken({ ...good, sub: undefined }) }],
    ['malformed credential', 'malformed', { credential: 'not-a-jwt' }],
    ['three garbage segments', 'malformed', { credential: 'a.b.c' }],
    ['empty credential', 'malformed', { credential: '' }]
  ]
  // what google-auth-library itself says about each, so the logs can be searched for it
  const library = new OAuth2Client({
    issuers: ['accounts.google.com', 'https://accounts.google.com'], endpoints: { oauth2FederatedSignonPemCertsUrl: peer.url }
  })
  const reasonsBefore = loggedReasons().length
  for (const [name, , body] of cases) {
    const credential = String(body.credential)
    const libraryMessage = await library.verifyIdToken({ idToken: credential, audience: String(body.clientId ?? TEST_CLIENT_ID) })
      .then(() => '', (err: Error) => err.message)
    refused.push({ credential, email, libraryMessage })
    const res = await idp({ token: true, acquisition_code: 'refused', ...body })
    t.equal(res.statusCode, 200, name)
    t.same(res.json(), FAILED, name)
    t.notOk(res.headers['set-cookie'], `${name}: no cookie`)
  }
  t.same(loggedReasons().slice(reasonsBefore), cases.map(([, reason]) => reason), 'the kind of each failure is logged')

  const missing = await app.inject({ method: 'POST', url: '/api/v1/auth/idp', payload: { clientId: TEST_CLIENT_ID, select_by: 'btn' } })
  t.equal(missing.statusCode, 200)
  t.equal(missing.json().fieldError.field, 'email', 'a missing credential is a form error on email')
  const notJson = await app.inject({ method: 'POST', url: '/api/v1/auth/idp', headers: { 'content-type': 'application/json' }, payload: '{"credential":' })
  t.equal(notJson.statusCode, 400)
  t.has(notJson.json(), { code: 400, message: 'body is not valid JSON' })
  t.equal((await app.database.query("select 1 from users where email = $1 or acquisition_code = 'refused'", [email])).length, 0, 'no account was created')
})

t.test('the credential check alone: no configured client ids, certificates unreachable', async (t) => {
  const credential = peer.idToken({ sub: newSub(), email: uniqueEmail('unit') })
  const configured = createGoogleService({ clientIds: [TEST_CLIENT_ID], certsUrl: peer.url })
  t.match(await configured.verify(TEST_CLIENT_ID, credential), { ok: true, identity: { email: /^unit-/ } }, 'the same credential passes when configured')

  const none = createGoogleService({ clientIds: [], certsUrl: peer.url })
  t.same(await none.verify(TEST_CLIENT_ID, credential), { ok: false, reason: 'client-id' }, 'GOOGLE_CLIENT_IDS empty: every sign-in fails')

  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const { port } = closed.address() as AddressInfo
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  const unreachable = createGoogleService({ clientIds: [TEST_CLIENT_ID], certsUrl: `http://127.0.0.1:${port}/certs` })
  t.same(await unreachable.verify(TEST_CLIENT_ID, credential), { ok: false, reason: 'certificates' }, 'an outage is told apart')
})

t.test('an address taken by an account linked to another Google account is refused', async (t) => {
  const email = uniqueEmail('taken')
  expectSignedIn(t, await idp({ credential: peer.idToken({ sub: newSub(), email }) }))
  const reasonsBefore = loggedReasons().length
  const other = await idp({ credential: peer.idToken({ sub: newSub(), email }), token: true })
  t.same(other.json(), FAILED)
  t.notOk(other.headers['set-cookie'])
  t.same(loggedReasons().slice(reasonsBefore), ['account-conflict'])
})

t.test('acquisition_code: 256 characters are stored, 257 are HTTP 400', async (t) => {
  const tooLongEmail = uniqueEmail('long')
  const tooLong = await idp({ credential: peer.idToken({ sub: newSub(), email: tooLongEmail }), acquisition_code: 'y'.repeat(257) })
  t.equal(tooLong.statusCode, 400)
  t.equal(tooLong.json().code, 400)
  t.match(tooLong.json().message, /acquisition_code/, 'the message names the field')
  t.notOk(tooLong.headers['set-cookie'])
  t.equal((await app.database.query('select 1 from users where email = $1', [tooLongEmail])).length, 0, 'no account')

  const code = 'x'.repeat(255) + 'z'
  const ok = await idp({ credential: peer.idToken({ sub: newSub(), email: uniqueEmail('long') }), acquisition_code: code, token: true })
  expectSignedIn(t, ok)
  t.equal(ok.json().isNewUser, true)
  t.equal((await info(ok.json().token)).body.acquisitionCode, code, 'stored whole')
})

t.test('two simultaneous first sign-ins with one new Google account make one account', async (t) => {
  const sub = newSub()
  const email = uniqueEmail('race')
  const answers = await Promise.all([1, 2, 3].map(() => idp({ credential: peer.idToken({ sub, email }), token: true })))
  for (const a of answers) expectSignedIn(t, a)
  t.equal(answers.filter((a) => a.json().isNewUser === true).length, 1, 'exactly one is new')
  const ids = new Set(await Promise.all(answers.map(async (a) => (await info(a.json().token)).body.id)))
  t.equal(ids.size, 1, 'all signed in to the same account')
  t.equal((await app.database.query('select 1 from users where email = $1', [email])).length, 1)
})

t.test('no log line carries a credential, its payload, or the library error text', async (t) => {
  t.ok(logLines.length > 0, 'the logger did run')
  t.ok(refused.filter((r) => r.libraryMessage).length >= 12, 'the library explained its refusals')
  const needles = new Set<string>()
  for (const r of refused) {
    if (r.libraryMessage) needles.add(r.libraryMessage)
    for (const part of r.credential.split('.')) if (part.length > 16) needles.add(part)
    needles.add(r.email)
  }
  for (const phrase of ['Wrong recipient', 'Token used too', 'Invalid token signature', 'No pem found', 'Invalid issuer', 'Wrong number of segments', "Can't parse token", 'Expiration time too far']) {
    needles.add(phrase)
  }
  needles.add(GOOD_PASSWORD)
  needles.add(NEW_PASSWORD)
  const leaked = logLines.filter((l) => [...needles].some((n) => l.includes(n)))
  t.same(leaked, [], 'nothing leaked')
})
