// The staff write actions on an account (docs/operations.md, Support → Actions), on PGlite and on
// PostgreSQL: disable and enable (sign-in says "account disabled" to the right password only, the
// JWT, the key and the endpoint cut off, mails held, nothing lost), credits and their ledger
// (two changes at once lose neither), ending sessions, removing second factors, sending a link; who
// may do which; each write audited with actor, target and reason and noticed to the holder once; and
// bad input refused with nothing changed. The cross-instance half of disable is
// test/scale-out/staff-disable.test.ts.
import t from '../tap.ts'
import { GOOD_PASSWORD, signedInUser, type SignedInUser } from '../helper.ts'
import { buildMfaApp, enrolTotp, type MfaApp } from '../mfa/support.ts'
import { staffMember, userIdOf, type StaffMember } from './support.ts'
import { issueKey, UNAUTHORIZED } from '../api-keys/support.ts'
import { seedReportData } from '../reports/seed.ts'
import type { Mail } from '../../src/services/accounts/mail.ts'

const DISABLED = { status: 'error', fieldError: { field: 'email', message: 'account disabled' } }
const WRONG = { status: 'error', fieldError: { field: 'password', message: 'Wrong e-mail or password' } }
const FORBIDDEN = { code: 403, message: 'access denied', reason: 'forbidden' }

const mails: Mail[] = []
let m: MfaApp
let admin: StaffMember
let support: StaffMember
t.before(async () => {
  const record = (mail: Mail) => { mails.push(mail) }
  m = await buildMfaApp(t, { SIGNUP_FREE_REPORTS: '3', RATE_LIMIT_SIGNUP_IP: '1000', RATE_LIMIT_SIGNIN_IP: '1000' }, { mail: { send: async (mail: Mail) => { record(mail) }, sendLater: record, close: async () => {} } })
  await seedReportData(m.app.database.db)
  admin = await staffMember(m, 'admin')
  support = await staffMember(m, 'support')
})

const act = (who: { auth: Record<string, string> }, method: 'POST' | 'DELETE', url: string, payload?: object) =>
  m.app.inject({ method, url: `/api/v1/admin${url}`, headers: who.auth, ...(payload === undefined ? {} : { payload }) })

/** a customer's account, signed in, with its id */
async function customer (): Promise<SignedInUser & { id: string }> {
  const user = await signedInUser(m.app)
  return { ...user, id: await userIdOf(m, user.email) }
}

const signin = (user: { email: string }, password: string) =>
  m.app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: user.email, password, token: true } })

/** the staff rows of an account: kind, actor and details */
const staffRows = async (userId: string) => await m.app.database.query<{ kind: string, actor_id: string, details: Record<string, unknown> }>(
  "select kind, actor_id, details from audit_events where user_id = $1 and kind like 'admin.%' order by id", [userId])

/** the security notices mailed to this address */
// the notices of staff actions: the holder's own events (a key created, a new device) send notices of their own
const noticesTo = (email: string) => mails.filter((x) => x.to === email && x.subject.startsWith('Security notice') && x.text.includes('our support staff'))

/** everything a refused request must leave as it was */
const snapshot = async (userId: string) => ({
  audit: await m.app.database.query('select kind, actor_id, details from audit_events where user_id = $1 order by id', [userId]),
  ledger: await m.app.database.query('select delta, balance, reason from credit_ledger where user_id = $1 order by id', [userId]),
  user: await m.app.database.query('select role, disabled_at, report_credits, credential_version, confirmed_at from users where id = $1', [userId]),
  // the account's own mails: the staff member's (a key they issued) are not the account's business
  mails: await (async () => {
    const [{ email }] = await m.app.database.query<{ email: string }>('select email from users where id = $1', [userId])
    return mails.filter((x) => x.to === email).length
  })()
})

t.test('disable: sign-in says so to the right password only, the JWT, key and endpoint are cut off, mails are held; enable restores it with nothing lost', async (t) => {
  const user = await customer()
  const report = await m.app.inject({ method: 'POST', url: '/api/v1/report', headers: user.auth, payload: { profiles: [{ source: 'ig', username: 'jdoe' }] } })
  t.equal(report.statusCode, 201, 'a report made before')
  const key = await issueKey(m.app, user.auth)
  const hook = await m.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: user.auth, payload: { url: 'http://127.0.0.1:9/hook', events: ['report.ready'] } })
  t.equal(hook.statusCode, 201)
  const [{ report_credits: creditsBefore }] = await m.app.database.query<{ report_credits: number }>('select report_credits from users where id = $1', [user.id])

  const res = await act(support, 'POST', `/users/${user.id}/disable`, { reason: 'chargeback fraud, ticket 1234' })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { id: user.id, email: user.email, role: 'user', disabled: true, credits: creditsBefore, mfa: { totp: false, passkeys: 0 } }, 'answers the user, disabled')

  t.same((await m.app.inject({ url: '/api/v1/auth/info', headers: user.auth })).json(), UNAUTHORIZED, 'the JWT is refused')
  t.same((await m.app.inject({ url: '/api/v1/report', headers: key.auth })).json(), UNAUTHORIZED, 'the API key is refused')
  const refreshed = await m.app.inject({ method: 'POST', url: '/api/v1/auth/token/refresh', headers: { cookie: user.cookie, origin: 'https://localhost:8443' } })
  t.equal(refreshed.statusCode, 401, 'the session cookie refreshes nothing')
  const [endpoint] = await m.app.database.query<{ disabled: boolean }>('select disabled_at is not null as disabled from webhook_endpoints where user_id = $1', [user.id])
  t.ok(endpoint.disabled, 'the webhook endpoint is disabled')
  t.same((await signin(user, GOOD_PASSWORD)).json(), DISABLED, 'the right password: account disabled')
  t.same((await signin(user, 'not the password at all')).json(), WRONG, 'a wrong one: the usual answer')

  const rows = await staffRows(user.id)
  t.same(rows, [{ kind: 'admin.disable', actor_id: support.id, details: { reason: 'chargeback fraud, ticket 1234', sessionsEnded: 1, apiKeysRevoked: 1, webhooksDisabled: 1 } }],
    'one audit row: actor, target, reason')
  const notices = noticesTo(user.email)
  t.equal(notices.length, 1, 'one notice')
  t.match(notices[0].text, /disabled[\s\S]*chargeback fraud, ticket 1234/, 'naming the reason')

  // mails are held: a recovery request and a sign-up with the address send nothing
  const before = mails.length
  t.equal((await m.app.inject({ method: 'POST', url: '/api/v1/auth/recovery', payload: { email: user.email } })).statusCode, 200)
  t.equal((await m.app.inject({ method: 'POST', url: '/api/v1/auth/signup', payload: { email: user.email, password: GOOD_PASSWORD, token: 'x' } })).json().status, 'success')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(mails.length, before, 'no mail to a disabled account')

  // idempotent: the account as it is, no second row, no second notice
  const again = await act(support, 'POST', `/users/${user.id}/disable`, { reason: 'again' })
  t.equal(again.statusCode, 200)
  t.match(again.json(), { id: user.id, disabled: true })
  t.equal((await staffRows(user.id)).length, 1, 'no second audit row')
  t.equal(noticesTo(user.email).length, 1, 'no second notice')

  const enabled = await act(support, 'POST', `/users/${user.id}/enable`, { reason: 'cleared by the bank' })
  t.equal(enabled.statusCode, 200)
  t.match(enabled.json(), { id: user.id, disabled: false, credits: creditsBefore })
  t.equal((await act(support, 'POST', `/users/${user.id}/enable`, { reason: 'twice' })).statusCode, 200, 'enabling an enabled account: the account as it is')
  t.same((await staffRows(user.id)).map((r) => [r.kind, r.actor_id, r.details.reason]),
    [['admin.disable', support.id, 'chargeback fraud, ticket 1234'], ['admin.enable', support.id, 'cleared by the bank']])
  t.equal(noticesTo(user.email).length, 2, 'one notice for the enable')

  const back = await signin(user, GOOD_PASSWORD)
  t.equal(back.json().status, 'success', 'signs in again')
  const auth = { authorization: `Bearer ${back.json().token as string}` }
  const list = (await m.app.inject({ url: '/api/v1/report', headers: auth })).json()
  t.equal(list.items.length, 1, 'its report is there')
  t.equal((await m.app.inject({ url: '/api/v1/webhooks', headers: auth })).json().items.length, 1, 'its endpoint is listed (disabled)')
})

t.test('a staff member cannot disable themselves; support acts on customers only; admin-only actions refuse support', async (t) => {
  const self = await snapshot(support.id)
  const res = await act(support, 'POST', `/users/${support.id}/disable`, { reason: 'oops' })
  t.equal(res.statusCode, 409)
  t.same(await snapshot(support.id), self, 'nothing changed')

  const adminBefore = await snapshot(admin.id)
  t.same((await act(support, 'POST', `/users/${admin.id}/disable`, { reason: 'coup' })).json(), FORBIDDEN, 'support cannot disable an admin')
  t.same(await snapshot(admin.id), adminBefore, 'nothing changed')

  const user = await customer()
  const before = await snapshot(user.id)
  t.equal((await act(support, 'POST', `/users/${user.id}/credits`, { delta: 5, reason: 'goodwill' })).statusCode, 403, 'credits: admin only')
  t.equal((await act(support, 'DELETE', `/users/${user.id}/factors`, { proof: 'video call' })).statusCode, 403, 'factors: admin only')
  t.same((await act(user, 'POST', `/users/${user.id}/enable`, { reason: 'me' })).json(), FORBIDDEN, 'a customer is refused')
  t.same(await snapshot(user.id), before, 'nothing changed')
})

t.test('credits: a ledger row and an audit row, never below 0, and two changes at once both count', async (t) => {
  const user = await customer()
  const res = await act(admin, 'POST', `/users/${user.id}/credits`, { delta: 5, reason: 'goodwill after outage' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { credits: 8 })
  t.same(await m.app.database.query('select delta, balance, reason, actor_id from credit_ledger where user_id = $1', [user.id]),
    [{ delta: 5, balance: 8, reason: 'goodwill after outage', actor_id: admin.id }])
  t.same(await staffRows(user.id), [{ kind: 'admin.credits', actor_id: admin.id, details: { reason: 'goodwill after outage', delta: 5, balance: 8 } }])
  t.equal(noticesTo(user.email).length, 1, 'one notice')
  t.match(noticesTo(user.email)[0].text, /5 report credits were added[\s\S]*goodwill after outage/)
  t.equal((await m.app.inject({ url: '/api/v1/auth/info', headers: user.auth })).json().reportCredits, 8, 'the holder sees it at once')

  const before = await snapshot(user.id)
  const below = await act(admin, 'POST', `/users/${user.id}/credits`, { delta: -9, reason: 'too many' })
  t.equal(below.statusCode, 409, 'below 0: 409')
  t.same(await snapshot(user.id), before, 'nothing changed')

  const both = await Promise.all([
    act(admin, 'POST', `/users/${user.id}/credits`, { delta: 3, reason: 'first' }),
    act(admin, 'POST', `/users/${user.id}/credits`, { delta: -2, reason: 'second' })
  ])
  t.same(both.map((r) => r.statusCode), [200, 200])
  const [{ report_credits: credits }] = await m.app.database.query<{ report_credits: number }>('select report_credits from users where id = $1', [user.id])
  t.equal(credits, 9, 'neither change is lost')
  const ledger = await m.app.database.query<{ delta: number, balance: number }>('select delta, balance from credit_ledger where user_id = $1 order by id', [user.id])
  t.equal(ledger.length, 3)
  t.equal(ledger[2].balance, 9, 'the last row holds the balance')
  t.equal(ledger[1].balance + ledger[2].delta, ledger[2].balance, 'each row follows the one before')
})

t.test('end sessions: every session of the account, on its JWTs; the keys stay', async (t) => {
  const user = await customer()
  const second = await signin(user, GOOD_PASSWORD)
  const key = await issueKey(m.app, user.auth)
  const res = await act(support, 'DELETE', `/users/${user.id}/sessions`, { reason: 'lost phone' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { ended: 2 })
  t.same((await m.app.inject({ url: '/api/v1/auth/info', headers: user.auth })).json(), UNAUTHORIZED, 'a JWT is refused')
  t.same((await m.app.inject({ url: '/api/v1/auth/info', headers: { authorization: `Bearer ${second.json().token as string}` } })).json(), UNAUTHORIZED, 'and the other')
  t.equal((await m.app.inject({ url: '/api/v1/report', headers: key.auth })).statusCode, 200, 'the API key still works')
  t.same(await staffRows(user.id), [{ kind: 'admin.sessions.end', actor_id: support.id, details: { reason: 'lost phone', ended: 2 } }])
  t.equal(noticesTo(user.email).length, 1, 'one notice')
})

t.test('remove factors: what npm run factors -- remove does, the proof in the audit row', async (t) => {
  const user = await customer()
  const enrolled = await enrolTotp(m, user)
  const key = await issueKey(m.app, { authorization: `Bearer ${enrolled.token}` })
  const before = await snapshot(user.id)
  const missing = await act(admin, 'DELETE', `/users/${user.id}/factors`, { reason: 'no proof' })
  t.equal(missing.statusCode, 400)
  t.match(missing.json().message, /proof/, 'names the field')
  t.equal((await act(admin, 'DELETE', `/users/${user.id}/factors`, { proof: '' })).statusCode, 400, 'an empty proof')
  t.same(await snapshot(user.id), before, 'nothing changed')

  const res = await act(admin, 'DELETE', `/users/${user.id}/factors`, { proof: 'video call against the passport on file', reason: 'lost phone' })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { totp: true, recoveryCodes: 10, passkeys: 0 })
  t.ok(res.json().sessionsEnded >= 1, 'its sessions ended')
  t.same((await m.app.inject({ url: '/api/v1/report', headers: key.auth })).json(), UNAUTHORIZED, 'its key is revoked')
  const rows = await staffRows(user.id)
  t.same(rows, [{ kind: 'admin.factors.remove', actor_id: admin.id, details: { proof: 'video call against the passport on file', reason: 'lost phone' } }])
  t.equal(noticesTo(user.email).length, 1, 'one notice')
  const signed = await signin(user, GOOD_PASSWORD)
  t.same({ status: signed.json().status, mfaRequired: signed.json().mfaRequired }, { status: 'success', mfaRequired: undefined }, 'signs in with the password alone')

  const none = await act(admin, 'DELETE', `/users/${user.id}/factors`, { proof: 'again' })
  t.equal(none.statusCode, 409, 'nothing left to remove: 409')
  t.equal((await staffRows(user.id)).length, 1, 'and no row')
})

t.test('send a link: to the account\'s own address, never in the answer', async (t) => {
  const user = await customer()
  const before = mails.length
  const res = await act(support, 'POST', `/users/${user.id}/mail`, { kind: 'recovery', reason: 'cannot sign in' })
  t.equal(res.statusCode, 202)
  t.same(res.json(), { status: 'queued' }, 'no link in the answer')
  await new Promise((resolve) => setImmediate(resolve))
  const sent = mails.slice(before)
  t.same(sent.map((x) => [x.to, x.subject]).sort(), [[user.email, 'Reset your password'], [user.email, 'Security notice: A password-recovery link was sent to this address']].sort())

  const confirmation = await act(support, 'POST', `/users/${user.id}/mail`, { kind: 'confirmation', reason: 'lost the first mail' })
  t.equal(confirmation.statusCode, 202)
  await new Promise((resolve) => setImmediate(resolve))
  t.ok(mails.some((x) => x.to === user.email && x.subject === 'Confirm your e-mail address'), 'a confirmation link')
  t.same((await staffRows(user.id)).map((r) => [r.kind, r.details]),
    [['admin.mail', { kind: 'recovery', reason: 'cannot sign in' }], ['admin.mail', { kind: 'confirmation', reason: 'lost the first mail' }]])

  await m.app.database.query('update users set confirmed_at = now() where id = $1', [user.id])
  const confirmed = await snapshot(user.id)
  const refused = await act(support, 'POST', `/users/${user.id}/mail`, { kind: 'confirmation', reason: 'again' })
  t.equal(refused.statusCode, 409, 'an account already confirmed: 409')
  t.same(await snapshot(user.id), confirmed, 'nothing sent, nothing written')
})

t.test('bad input: 404 for an unknown or malformed id, 400 naming the field, nothing changed', async (t) => {
  const user = await customer()
  const before = await snapshot(user.id)
  const unknown = '00000000-0000-4000-8000-000000000000'
  for (const [method, url, body] of [
    ['POST', 'disable', { reason: 'x' }], ['POST', 'enable', { reason: 'x' }], ['POST', 'credits', { delta: 1, reason: 'x' }],
    ['DELETE', 'sessions', { reason: 'x' }], ['DELETE', 'factors', { proof: 'x' }], ['POST', 'mail', { kind: 'recovery', reason: 'x' }]
  ] as const) {
    t.equal((await act(admin, method, `/users/${unknown}/${url}`, body)).statusCode, 404, `${url}: an unknown id`)
    t.equal((await act(admin, method, `/users/NOT-AN-ID/${url}`, body)).statusCode, 404, `${url}: a malformed id, as on every route`)
  }
  const bad: Array<[string, object, RegExp]> = [
    ['credits', { delta: 0, reason: 'x' }, /delta/],
    ['credits', { delta: 1001, reason: 'x' }, /delta/],
    ['credits', { delta: -1001, reason: 'x' }, /delta/],
    ['credits', { delta: 1.5, reason: 'x' }, /delta/],
    ['credits', { delta: 5, reason: '' }, /reason/],
    ['credits', { delta: 5, reason: '   ' }, /reason/],
    ['credits', { delta: 5 }, /reason/],
    ['disable', { reason: '' }, /reason/],
    ['disable', {}, /reason/],
    ['mail', { kind: 'password', reason: 'x' }, /kind/],
    ['mail', { kind: 'recovery' }, /reason/]
  ]
  for (const [url, body, field] of bad) {
    const res = await act(admin, 'POST', `/users/${user.id}/${url}`, body)
    t.equal(res.statusCode, 400, `${url} ${JSON.stringify(body)}: 400`)
    t.match(res.json().message, field, 'naming the field')
  }
  t.equal((await act(admin, 'DELETE', `/users/${user.id}/sessions`, { reason: '' })).statusCode, 400, 'an empty reason to end sessions')
  t.same(await snapshot(user.id), before, 'nothing changed: audit, ledger, user row, mails')
})

t.test('every action needs a fresh proof, and a key never acts, not even a staff member\'s admin:read key', async (t) => {
  const user = await customer()
  const stale = await staffMember(m, 'admin')
  const before = await snapshot(user.id)
  const key = await issueKey(m.app, stale.auth, { scopes: ['admin:read'] })
  const byKey = await act(key, 'POST', `/users/${user.id}/disable`, { reason: 'by a program' })
  t.equal(byKey.statusCode, 403, 'a key is refused')
  t.match(byKey.json(), { code: 403, message: 'access denied' })
  await m.app.database.query("update sessions set proved_at = now() - interval '1 day' where user_id = $1", [stale.id])
  for (const [method, url, body] of [
    ['POST', 'disable', { reason: 'x' }], ['POST', 'enable', { reason: 'x' }], ['POST', 'credits', { delta: 1, reason: 'x' }],
    ['DELETE', 'sessions', { reason: 'x' }], ['DELETE', 'factors', { proof: 'x' }], ['POST', 'mail', { kind: 'recovery', reason: 'x' }]
  ] as const) {
    t.same((await act(stale, method, `/users/${user.id}/${url}`, body)).json(),
      { code: 403, message: 're-authentication required', reason: 'reauthentication_required' }, `${url}: a stale proof is refused`)
  }
  t.same(await snapshot(user.id), before, 'nothing changed')
})
