// Setting up an authenticator app (docs/decisions/accounts.md, Second factors): the set-up and the
// removal need a fresh proof; the set-up is pending until its first code confirms it; the
// confirmation answers ten recovery codes once, raises the session to level 2 and ends the
// account's other sessions; removal takes the codes with it, ends the other sessions and leaves the
// session without a level. The secret is sealed at rest under MFA_ENCRYPTION_KEY, and a rotated-out
// key still opens it.
import t from '../tap.ts'
import { freshDatabase, signedInUser } from '../helper.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'
import { bearer, buildMfaApp, claimsOf, enrolTotp, inject, passwordSignin, type MfaApp } from './support.ts'

const STALE = { code: 403, message: 're-authentication required', reason: 'reauthentication_required' }
const LAST_FACTOR = {
  code: 403,
  message: 'removing the last second factor needs a proof by it: a code of the authenticator app or a recovery code, or an assertion of the passkey',
  reason: 'factor_proof_required'
}
const KEY_1 = 'first-mfa-encryption-key-0123456789abcdef'
const KEY_2 = 'second-mfa-encryption-key-0123456789abcdef'

let m: MfaApp
t.before(async () => { m = await buildMfaApp(t, { RATE_LIMIT_SIGNUP_IP: '1000' }) })

const levelOf = async (app: MfaApp['app'], sid: string) =>
  (await app.database.query<{ aal: number | null }>('select aal from sessions where public_id = $1', [sid]))[0]?.aal
const backDate = (sid: string) => m.app.database.query("update sessions set proved_at = now() - interval '1 hour' where public_id = $1", [sid])
const auditKinds = async (email: string) => (await m.app.database.query<{ kind: string }>(
  'select kind from audit_events where user_id = (select id from users where email = $1) order by id', [email])).map((r) => r.kind)

t.test('setting up and removing need a fresh proof of the owner; confirming needs the pending secret', async (t) => {
  const user = await signedInUser(m.app)
  await backDate(claimsOf(user.token).sid as string)
  t.has((await inject(m.app, 'POST', '/auth/mfa/totp', user.auth)).json(), STALE)
  t.has((await inject(m.app, 'DELETE', '/auth/mfa/totp', user.auth)).json(), STALE)
  const none = await inject(m.app, 'POST', '/auth/mfa/totp/confirm', user.auth, { code: '123456' })
  t.equal(none.statusCode, 409)
  t.has(none.json(), { code: 409, message: 'no authenticator app set-up is pending' })
  t.equal((await inject(m.app, 'POST', '/auth/mfa/totp')).statusCode, 401, 'without a token')
})

t.test('set up, confirm: ten recovery codes once, level 2, the other sessions end; the secret is sealed', async (t) => {
  const user = await signedInUser(m.app)
  const other = await passwordSignin(m.app, user)
  const begun = await inject(m.app, 'POST', '/auth/mfa/totp', user.auth)
  t.equal(begun.statusCode, 200)
  const { secret, otpauthUrl } = begun.json()
  t.match(secret, /^[A-Z2-7]{32}$/)
  t.match(otpauthUrl, /^otpauth:\/\/totp\//)
  t.equal(new URL(otpauthUrl).searchParams.get('secret'), secret)
  t.same((await inject(m.app, 'GET', '/auth/info', user.auth)).json().mfa, { totp: false, passkeys: 0, recoveryCodesLeft: 0 }, 'pending: not a factor yet')
  const [stored] = await m.app.database.query<{ secret: string }>('select secret from mfa_totp where user_id = (select id from users where email = $1)', [user.email])
  t.notMatch(stored.secret, secret, 'sealed at rest')
  t.match(stored.secret, /^v1\./)

  const wrongCode = codeAt(secret, m.now()) === '000000' ? '111111' : '000000'
  t.same((await inject(m.app, 'POST', '/auth/mfa/totp/confirm', user.auth, { code: wrongCode })).json(),
    { status: 'error', fieldError: { field: 'code', message: 'The code is wrong or was used already' } })
  const confirmed = await inject(m.app, 'POST', '/auth/mfa/totp/confirm', user.auth, { code: codeAt(secret, m.now()) })
  t.equal(confirmed.statusCode, 200)
  const body = confirmed.json()
  t.equal(body.status, 'success')
  t.equal(body.recoveryCodes.length, 10)
  t.equal(new Set(body.recoveryCodes).size, 10)
  const sid = claimsOf(user.token).sid as string
  t.equal(claimsOf(body.token).aal, 2, 'the new token is at level 2')
  t.equal(claimsOf(body.token).sid, sid)
  t.equal(await levelOf(m.app, sid), 2)
  t.equal((await inject(m.app, 'GET', '/report', bearer(other.body.token!))).statusCode, 401, 'the other session (one factor only) has ended')
  t.equal((await inject(m.app, 'GET', '/report', user.auth)).statusCode, 200, 'the old token of this session goes on')
  t.same((await inject(m.app, 'GET', '/auth/info', bearer(body.token))).json().mfa, { totp: true, passkeys: 0, recoveryCodesLeft: 10 })

  const again = await inject(m.app, 'POST', '/auth/mfa/totp', bearer(body.token))
  t.equal(again.statusCode, 409, 'a second set-up while one is confirmed')
  t.same(await auditKinds(user.email), ['signup', 'signin.success', 'signin.success', 'mfa.totp.enrol', 'mfa.totp.confirm'])
})

t.test('a set-up begun again replaces the pending secret: the first one no longer confirms', async (t) => {
  const user = await signedInUser(m.app)
  const first = (await inject(m.app, 'POST', '/auth/mfa/totp', user.auth)).json().secret as string
  const second = (await inject(m.app, 'POST', '/auth/mfa/totp', user.auth)).json().secret as string
  t.not(first, second)
  const stale = await inject(m.app, 'POST', '/auth/mfa/totp/confirm', user.auth, { code: codeAt(first, m.now()) })
  if (codeAt(first, m.now()) !== codeAt(second, m.now())) t.equal(stale.json().status, 'error')
  t.equal((await inject(m.app, 'POST', '/auth/mfa/totp/confirm', user.auth, { code: codeAt(second, m.now()) })).json().status, 'success')
  m.nextStep()
})

t.test('removal takes the recovery codes with it, ends the other sessions and leaves this one without a level', async (t) => {
  const user = await signedInUser(m.app)
  const enrolled = await enrolTotp(m, user)
  const auth = bearer(enrolled.token)
  const sid = claimsOf(enrolled.token).sid as string
  const other = await passwordSignin(m.app, user)
  const verified = await inject(m.app, 'POST', '/auth/mfa/verify', bearer(other.body.token!), { code: codeAt(enrolled.secret, m.now()) })
  t.equal(verified.json().status, 'success', 'another session at level 2')
  m.nextStep()

  const res = await inject(m.app, 'DELETE', '/auth/mfa/totp', auth, { code: codeAt(enrolled.secret, m.now()) })
  t.equal(res.statusCode, 200, 'the last factor goes with a code of it')
  t.equal(res.json().status, 'success')
  t.same(Object.keys(claimsOf(res.json().token)).sort(), ['exp', 'iat', 'sid', 'sub'], 'no level, no claim')
  t.equal(await levelOf(m.app, sid), null)
  t.equal((await inject(m.app, 'GET', '/report', bearer(verified.json().token))).statusCode, 401, 'a factor removed: the other sessions end')
  t.same((await inject(m.app, 'GET', '/auth/info', auth)).json().mfa, { totp: false, passkeys: 0, recoveryCodesLeft: 0 })
  const [codes] = await m.app.database.query<{ n: number }>('select count(*)::int as n from mfa_recovery_codes where user_id = (select id from users where email = $1)', [user.email])
  t.equal(codes.n, 0)
  t.equal((await inject(m.app, 'DELETE', '/auth/mfa/totp', auth)).statusCode, 404, 'nothing left to remove')
  const signin = await passwordSignin(m.app, user)
  t.same(signin.body, { status: 'success', token: signin.body.token }, 'sign-in is as before')
  t.ok((await auditKinds(user.email)).includes('mfa.totp.remove'))
})

t.test('the last second factor is not removed with the password alone: a code of it or a recovery code proves it', async (t) => {
  const user = await signedInUser(m.app)
  const enrolled = await enrolTotp(m, user)
  const auth = bearer(enrolled.token)
  const [auditBefore] = await m.app.database.query<{ n: number }>('select count(*)::int as n from audit_events where kind = $1 and user_id = (select id from users where email = $2)', ['mfa.totp.remove', user.email])
  // the session is fresh (its password sign-in is a minute old): that alone does not remove the only factor
  const bare = await inject(m.app, 'DELETE', '/auth/mfa/totp', auth)
  t.equal(bare.statusCode, 403)
  t.same(bare.json(), LAST_FACTOR)
  t.equal((await inject(m.app, 'GET', '/auth/info', auth)).json().mfa.totp, true, 'the factor stays')
  const right = codeAt(enrolled.secret, m.now())
  const wrong = await inject(m.app, 'DELETE', '/auth/mfa/totp', auth, { code: right === '000000' ? '111111' : '000000' })
  t.equal(wrong.statusCode, 403)
  t.same(wrong.json(), { code: 403, message: 'The code is wrong or was used already', reason: 'proof_refused' })
  t.same(wrong.json(), (await inject(m.app, 'DELETE', '/auth/mfa/totp', auth, { recoveryCode: 'not-a-code' })).json(), 'a wrong recovery code alike')
  t.equal((await inject(m.app, 'GET', '/auth/info', auth)).json().mfa.totp, true, 'still there')
  const [auditAfter] = await m.app.database.query<{ n: number }>('select count(*)::int as n from audit_events where kind = $1 and user_id = (select id from users where email = $2)', ['mfa.totp.remove', user.email])
  t.equal(auditAfter.n, auditBefore.n, 'nothing removed, nothing recorded')
  const removed = await inject(m.app, 'DELETE', '/auth/mfa/totp', auth, { recoveryCode: enrolled.recoveryCodes[0] })
  t.equal(removed.statusCode, 200, 'a recovery code proves it')
  t.same((await inject(m.app, 'GET', '/auth/info', bearer(removed.json().token))).json().mfa, { totp: false, passkeys: 0, recoveryCodesLeft: 0 })
})

t.test('key rotation: a secret sealed under a key now in MFA_PREVIOUS_ENCRYPTION_KEYS still verifies, and is sealed again', async (t) => {
  const database = await freshDatabase(t)
  const before = await buildMfaApp(t, { MFA_ENCRYPTION_KEY: KEY_1, RATE_LIMIT_SIGNUP_IP: '1000' }, { database })
  const user = await signedInUser(before.app)
  const enrolled = await enrolTotp(before, user)
  const sealedOf = async () => (await database.query<{ secret: string }>(
    'select secret from mfa_totp where user_id = (select id from users where email = $1)', [user.email]))[0].secret
  const underKey1 = await sealedOf()

  const withoutOld = await buildMfaApp(t, { MFA_ENCRYPTION_KEY: KEY_2 }, { database })
  const lost = await passwordSignin(withoutOld.app, user)
  t.equal((await inject(withoutOld.app, 'POST', '/auth/mfa/verify', bearer(lost.body.token!), { code: codeAt(enrolled.secret, withoutOld.now() + 30_000) })).json().status,
    'error', 'without the old key the secret does not open')

  const rotated = await buildMfaApp(t, { MFA_ENCRYPTION_KEY: KEY_2, MFA_PREVIOUS_ENCRYPTION_KEYS: KEY_1 }, { database })
  const signin = await passwordSignin(rotated.app, user)
  const res = await inject(rotated.app, 'POST', '/auth/mfa/verify', bearer(signin.body.token!), { code: codeAt(enrolled.secret, rotated.now() + 30_000) })
  t.equal(res.json().status, 'success', 'the previous key opens it')
  const underKey2 = await sealedOf()
  t.not(underKey2.split('.')[1], underKey1.split('.')[1], 'sealed again under the current key')

  const onlyNew = await buildMfaApp(t, { MFA_ENCRYPTION_KEY: KEY_2 }, { database })
  const later = await passwordSignin(onlyNew.app, user)
  // a step later than the one just used, within the window of this app's clock
  onlyNew.nextStep()
  t.equal((await inject(onlyNew.app, 'POST', '/auth/mfa/verify', bearer(later.body.token!), { code: codeAt(enrolled.secret, onlyNew.now() + 30_000) })).json().status,
    'success', 'and the old key is needed no more')
})
