// The holder's security log (docs/security.md, The security log): GET /auth/security-events lists the
// account's own audit rows of the kinds a person reviews, newest first, paged, each with the device
// as the sessions card names it, the IP address, and `by: staff` where staff acted (then without the
// staff member's device or address). Never another account's rows, nor rows of other kinds; a
// person's JWT only.
import t from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, GOOD_PASSWORD, registeredUser, type SignedInUser, signedInUser } from '../helper.ts'
import { AUDIT } from '../../src/services/accounts/audit.ts'
import { issueKey } from '../api-keys/support.ts'

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'

let app: Awaited<ReturnType<typeof build>>
t.before(async () => {
  app = await build(t, { RATE_LIMIT_SIGNIN_IP: '1000', RATE_LIMIT_SIGNIN_EMAIL: '100', RATE_LIMIT_SIGNUP_IP: '1000' })
})

interface Item { kind: string, createdAt: string, device: string | null, ip: string | null, by: 'you' | 'staff' }

const log = async (auth: Record<string, string>, query = '') => {
  const res = await app.inject({ url: `/api/v1/auth/security-events${query}`, headers: auth })
  if (res.statusCode !== 200) throw new Error(`security log: ${res.statusCode} ${res.body}`)
  return res.json() as { items: Item[], total: number, hasMore: boolean }
}
const idOf = async (email: string) => (await app.database.query<{ id: string }>('select id from users where email = $1', [email]))[0].id

/** a staff action on `userId`'s account, as the admin API records one */
async function staffAction (app: FastifyInstance, kind: string, userId: string | null, actorId: string) {
  await app.database.db.transaction(async (tx) => {
    await app.services.audit.recordStaffIn(tx, kind, { userId, actorId, meta: { ip: '192.0.2.99', userAgent: FIREFOX }, details: { reason: 'asked by phone' } })
  })
}

t.test("the account's own events, newest first, with device, address and who acted", async (t) => {
  const { email } = await registeredUser(app)
  const from = (ip: string) => ({ remoteAddress: ip, headers: { 'user-agent': CHROME } })
  const wrong = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', ...from('198.51.100.66'), payload: { email, password: 'not the password' } })
  t.equal(wrong.json().status, 'error')
  const signin = await app.inject({ method: 'POST', url: '/api/v1/auth/signin', ...from('203.0.113.7'), payload: { email, password: GOOD_PASSWORD, token: true } })
  const auth = { authorization: `Bearer ${signin.json().token as string}`, 'user-agent': CHROME }
  const other = await signedInUser(app, { email, signUp: false })
  const call = (method: 'POST' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url: `/api/v1${url}`, remoteAddress: '203.0.113.7', headers: auth, ...(payload ? { payload } : {}) })
  t.equal((await call('POST', '/auth/api-keys', { name: 'nightly', scopes: ['reports:read'] })).statusCode, 201)
  t.equal((await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['report.ready'] })).statusCode, 201)
  // a TOTP set-up begun is not a change of the account's factors: not in the log
  t.equal((await call('POST', '/auth/mfa/totp')).statusCode, 200)
  t.equal((await call('DELETE', '/auth/sessions')).statusCode, 200, 'the other session ends')
  t.equal((await app.inject({ url: '/api/v1/auth/info', headers: other.auth })).statusCode, 401)
  await staffAction(app, AUDIT.adminCredits, await idOf(email), await idOf((await registeredUser(app)).email))

  const page = await log(auth)
  t.same(page.items.map((e) => [e.kind, e.by]), [
    ['admin.credits', 'staff'],
    ['session.end', 'you'],
    ['webhook.create', 'you'],
    ['apikey.create', 'you'],
    ['signin.success', 'you'],
    ['signin.success', 'you'],
    ['signin.failure', 'you'],
    ['signup', 'you']
  ], 'newest first; the set-up begun is left out')
  t.same({ total: page.total, hasMore: page.hasMore }, { total: 8, hasMore: false })
  const [staff, ended, , , , first, failure] = page.items
  t.same({ device: staff.device, ip: staff.ip }, { device: null, ip: null }, "a staff action shows neither the staff member's device nor address")
  t.same({ device: ended.device, ip: ended.ip }, { device: 'Chrome on Linux', ip: '203.0.113.7' }, 'the device as the sessions card names it')
  t.same({ device: first.device, ip: first.ip }, { device: 'Chrome on Linux', ip: '203.0.113.7' })
  t.same({ device: failure.device, ip: failure.ip }, { device: 'Chrome on Linux', ip: '198.51.100.66' }, 'a failed sign-in with its address')
  const times = page.items.map((e) => Date.parse(e.createdAt))
  t.ok(times.every((at, i) => i === 0 || at <= times[i - 1]), 'createdAt never increases down the list')
})

t.test('paging: offset and limit walk the whole log once; past the end an empty page', async (t) => {
  const user = await signedInUser(app)
  for (let i = 0; i < 4; i++) await signedInUser(app, { email: user.email, signUp: false })
  const all = await log(user.auth, '?limit=100')
  t.equal(all.total, 6, 'sign-up and five sign-ins')
  const walked: Item[] = []
  for (let offset = 0; ; offset += 4) {
    const page = await log(user.auth, `?offset=${offset}&limit=4`)
    t.equal(page.total, 6)
    walked.push(...page.items)
    if (!page.hasMore) break
  }
  t.same(walked, all.items, 'the pages are the list')
  t.same(await log(user.auth, '?offset=50&limit=4'), { items: [], total: 6, hasMore: false })
  t.same((await log(user.auth)).items.length, 6, 'twenty by default')
  for (const query of ['?limit=0', '?limit=101', '?offset=-1', '?limit=x', '?other=1']) {
    t.equal((await app.inject({ url: `/api/v1/auth/security-events${query}`, headers: user.auth })).statusCode, 400, query)
  }
})

t.test("never another account's events", async (t) => {
  const alice = await signedInUser(app)
  const bob = await signedInUser(app)
  const [aliceId, bobId] = [await idOf(alice.email), await idOf(bob.email)]
  // bob fails to sign in to alice's account, and ends his other session
  await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: alice.email, password: 'a guess of bob' } })
  await signedInUser(app, { email: bob.email, signUp: false })
  t.equal((await app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions', headers: bob.auth })).statusCode, 200)
  // bob acts as staff on alice's account; a staff action on no account (a promo code)
  await staffAction(app, AUDIT.adminDisable, aliceId, bobId)
  await staffAction(app, AUDIT.adminPromocodeCreate, null, bobId)
  const rowsOf = async (id: string) => Number((await app.database.query<{ n: number }>(
    "select count(*)::int as n from audit_events where user_id = $1 and kind <> 'mfa.totp.enrol'", [id]))[0].n)

  const aliceLog = await log(alice.auth, '?limit=100')
  const bobLog = await log(bob.auth, '?limit=100')
  t.same(aliceLog.items.map((e) => e.kind), ['admin.disable', 'signin.failure', 'signin.success', 'signup'])
  t.same(bobLog.items.map((e) => e.kind), ['session.end', 'signin.success', 'signin.success', 'signup'], "bob's log: his own rows, not those he wrote as staff")
  t.equal(aliceLog.total, await rowsOf(aliceId))
  t.equal(bobLog.total, await rowsOf(bobId))
})

t.test('a person only: no token 401, an API key 403', async (t) => {
  const user: SignedInUser = await signedInUser(app)
  t.equal((await app.inject({ url: '/api/v1/auth/security-events' })).statusCode, 401)
  const key = await issueKey(app, user.auth, { scopes: ['reports:read'] })
  t.equal((await app.inject({ url: '/api/v1/auth/security-events', headers: key.auth })).statusCode, 403)
  t.equal((await app.inject({ url: '/api/v1/auth/notices', headers: key.auth })).statusCode, 403)
})
