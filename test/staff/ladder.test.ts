// Who may call /admin (src/plugins/staff.ts): no credentials 401; a person without a staff role 403
// access denied; a staff session at level 1, or of an account without a second factor, 403 second
// factor required; a write without a fresh proof 403 re-authentication required; support on an
// admin-only route 403; an `admin:read` key reads and never writes, and only staff may issue one.
import t from '../tap.ts'
import { signedInUser } from '../helper.ts'
import { buildMfaApp, inject, passwordSignin, SECOND_FACTOR_REQUIRED } from '../mfa/support.ts'
import { issueKey, UNAUTHORIZED } from '../api-keys/support.ts'
import { staffMember, userIdOf } from './support.ts'

const m = await buildMfaApp(t)
const { app } = m
const admin = await staffMember(m, 'admin')
const support = await staffMember(m, 'support')
const plain = await signedInUser(app)
const plainId = await userIdOf(m, plain.email)

const ACCESS_DENIED = { code: 403, message: 'access denied', reason: 'forbidden' }
const STALE = { code: 403, message: 're-authentication required', reason: 'reauthentication_required' }
const READS = ['/admin/users', `/admin/users/${plainId}`, '/admin/audit', '/admin/promocodes', '/admin/overview']
const put = (auth: Record<string, string>, id: string, payload: object) =>
  app.inject({ method: 'PUT', url: `/api/v1/admin/users/${id}/role`, headers: auth, payload })

t.test('no credentials 401, a plain user 403 access denied', async (t) => {
  for (const url of READS) {
    const none = await inject(app, 'GET', url)
    t.equal(none.statusCode, 401, `${url} without credentials`)
    t.same(none.json(), UNAUTHORIZED)
    const user = await inject(app, 'GET', url, plain.auth)
    t.equal(user.statusCode, 403, `${url} as a plain user`)
    t.same(user.json(), ACCESS_DENIED)
  }
  const write = await put(plain.auth, plainId, { role: 'admin', reason: 'me' })
  t.equal(write.statusCode, 403, 'a plain user cannot make itself admin')
  t.same(write.json(), ACCESS_DENIED)
})

t.test('staff at level 1, or without a second factor: 403 second factor required', async (t) => {
  m.nextStep()
  const level1 = await passwordSignin(app, admin)
  t.equal(level1.body.mfaRequired, true)
  const res = await inject(app, 'GET', '/admin/users', { authorization: `Bearer ${level1.body.token}` })
  t.equal(res.statusCode, 403)
  t.same(res.json(), SECOND_FACTOR_REQUIRED)

  const bare = await signedInUser(app)
  await app.database.query('update users set role = $1 where email = $2', ['admin', bare.email])
  const noFactor = await inject(app, 'GET', '/admin/overview', bare.auth)
  t.equal(noFactor.statusCode, 403, 'an admin without a second factor must enrol one first')
  t.same(noFactor.json(), SECOND_FACTOR_REQUIRED)
  await app.database.query('update users set role = $1 where email = $2', ['user', bare.email])
})

t.test('staff at level 2 read; support is refused the admin-only writes', async (t) => {
  for (const who of [admin, support]) {
    for (const url of READS) t.equal((await inject(app, 'GET', url, who.auth)).statusCode, 200, `${who.role} reads ${url}`)
  }
  const role = await put(support.auth, plainId, { role: 'support', reason: 'help' })
  t.equal(role.statusCode, 403, 'support cannot change roles')
  t.same(role.json(), ACCESS_DENIED)
  const promo = await inject(app, 'POST', '/admin/promocodes', support.auth, { code: 'NOPE', maxUses: 1, reason: 'x' })
  t.equal(promo.statusCode, 403, 'support cannot make promo codes')
  t.same(promo.json(), ACCESS_DENIED)
})

t.test('an admin:read key reads and never writes; only staff may issue one', async (t) => {
  const key = await issueKey(app, admin.auth, { name: 'staff reader', scopes: ['admin:read'] })
  for (const url of READS) t.equal((await inject(app, 'GET', url, key.auth)).statusCode, 200, `the key reads ${url}`)
  const write = await put(key.auth, plainId, { role: 'support', reason: 'by a program' })
  t.equal(write.statusCode, 403, 'a key never writes at /admin')
  const other = await issueKey(app, admin.auth, { name: 'reports only', scopes: ['reports:read'] })
  t.equal((await inject(app, 'GET', '/admin/users', other.auth)).statusCode, 403, 'a key without admin:read is refused')

  const refused = await app.inject({ method: 'POST', url: '/api/v1/auth/api-keys', headers: plain.auth, payload: { name: 'sneaky', scopes: ['reports:read', 'admin:read'] } })
  t.equal(refused.statusCode, 400, 'a plain user cannot issue an admin:read key')
  t.match(refused.json().message, /^body scopes: /, 'the answer names the field')
  t.equal((await app.database.query('select id from api_keys where name = $1', ['sneaky'])).length, 0, 'no key was made')

  // its owner stops being staff: the key stops reading
  const reader = await staffMember(m, 'support')
  const held = await issueKey(app, reader.auth, { name: 'held', scopes: ['admin:read'] })
  t.equal((await inject(app, 'GET', '/admin/overview', held.auth)).statusCode, 200)
  await app.database.query('update users set role = $1 where id = $2', ['user', reader.id])
  t.equal((await inject(app, 'GET', '/admin/overview', held.auth)).statusCode, 403, 'a former staff member\'s key is refused')
})

t.test('a write needs a fresh proof: past STEP_UP_MAX_AGE_S 403 re-authentication required', async (t) => {
  const other = await staffMember(m, 'admin')
  // 21 steps of 30 s: past the default 600 s
  for (let i = 0; i < 21; i++) m.nextStep()
  t.equal((await inject(app, 'GET', '/admin/users', other.auth)).statusCode, 200, 'reads need no fresh proof')
  const stale = await put(other.auth, plainId, { role: 'support', reason: 'help' })
  t.equal(stale.statusCode, 403)
  t.same(stale.json(), STALE)
  const promo = await inject(app, 'POST', '/admin/promocodes', other.auth, { code: 'STALE', maxUses: 1, reason: 'x' })
  t.same(promo.json(), STALE)
  t.equal((await app.database.query('select role from users where id = $1', [plainId]))[0].role, 'user', 'nothing changed')
})
