// GET /admin/users and /admin/users/{id}, PUT /admin/users/{id}/role (docs/operations.md, Support):
// search by any part of the address in any case (its % and _ literal), the status filter and paging;
// an account's page; roles never leave the service without an admin and never change one's own;
// each change is audited with actor, target and reason and mails the holder a notice; bad input is
// 400 naming the field, an unknown or malformed id 404, and changes nothing. GET /auth/info names the role.
import t from '../tap.ts'
import { signedInUser, uniqueEmail } from '../helper.ts'
import { buildMfaApp, inject } from '../mfa/support.ts'
import { issueKey } from '../api-keys/support.ts'
import type { Mail } from '../../src/services/accounts/mail.ts'
import { staffMember, userIdOf } from './support.ts'

const mails: Mail[] = []
const record = (m: Mail) => { mails.push(m) }
const m = await buildMfaApp(t, {}, { mail: { send: async (mail: Mail) => { record(mail) }, sendLater: record, close: async () => {} } })
const { app } = m
const admin = await staffMember(m, 'admin')
const get = (url: string) => inject(app, 'GET', url, admin.auth)
const put = (id: string, payload: object, auth = admin.auth) => app.inject({ method: 'PUT', url: `/api/v1/admin/users/${id}/role`, headers: auth, payload })
const auditRows = (kind: string, userId: string) => app.database.query<{ actor_id: string | null, ip: string | null, details: Record<string, unknown> }>(
  'select actor_id, ip, details from audit_events where kind = $1 and user_id = $2 order by id', [kind, userId])

// a marker no other address of this file has, in three forms
const tag = `zq${process.pid}x`
const people = {
  upper: await signedInUser(app, { email: `Ann.${tag.toUpperCase()}@example.com`.toLowerCase() }),
  percent: await signedInUser(app, { email: `bob_100%${tag}@example.com` }),
  plain: await signedInUser(app, { email: `carol.${tag}@example.com` })
}

t.test('search: a part of the address in any case; % and _ match themselves', async (t) => {
  const all = (await get(`/admin/users?q=${tag.toUpperCase()}`)).json()
  t.equal(all.total, 3, 'upper case finds the lowercase addresses')
  t.same(all.items.map((u: { email: string }) => u.email).sort(), Object.values(people).map((p) => p.email).sort())
  t.equal((await get(`/admin/users?q=${tag}`)).json().total, 3, 'lower case too')
  const percent = (await get(`/admin/users?q=${encodeURIComponent(`100%${tag}`)}`)).json()
  t.same(percent.items.map((u: { email: string }) => u.email), [people.percent.email], '% is a character, not a wildcard')
  t.equal((await get(`/admin/users?q=${encodeURIComponent('%')}`)).json().total, 1, 'a lone % finds the one address that has one')
  t.equal((await get(`/admin/users?q=${encodeURIComponent('b_b_100')}`)).json().total, 0, '_ is a character, not any character')
  t.equal((await get('/admin/users?q=nobody-has-this-part')).json().total, 0)
  const exact = (await get(`/admin/users?email=${encodeURIComponent(people.plain.email.toUpperCase())}`)).json()
  t.same(exact.items.map((u: { email: string }) => u.email), [people.plain.email], 'email: the whole address, any case')
  t.equal((await get(`/admin/users?email=${encodeURIComponent(people.plain.email.slice(1))}`)).json().total, 0, 'email: never a part')

  const item = all.items.find((u: { email: string }) => u.email === people.plain.email)
  t.match(item, {
    id: await userIdOf(m, people.plain.email), confirmed: false, role: 'user', disabled: false, credits: 1,
    subscription: null, mfa: { totp: false, passkeys: 0 }
  })
  t.ok(Date.parse(item.lastSignInAt) > 0, 'the sign-in is the last one')
})

t.test('status and paging', async (t) => {
  const ann = await userIdOf(m, people.upper.email)
  const bob = await userIdOf(m, people.percent.email)
  await app.database.query('update users set confirmed_at = now() where id = $1', [ann])
  await app.database.query('update users set disabled_at = now() where id = $1', [bob])
  const emails = async (status: string) => (await get(`/admin/users?q=${tag}&status=${status}`)).json().items.map((u: { email: string }) => u.email)
  t.same(await emails('active'), [people.upper.email])
  t.same(await emails('disabled'), [people.percent.email])
  t.same(await emails('unconfirmed'), [people.plain.email])
  t.match((await get(`/admin/users?q=${tag}&status=disabled`)).json().items[0], { disabled: true })
  await app.database.query('update users set disabled_at = null where id = $1', [bob])

  const seen: string[] = []
  for (let offset = 0; offset < 3; offset++) {
    const page = (await get(`/admin/users?q=${tag}&limit=1&offset=${offset}`)).json()
    t.equal(page.total, 3)
    t.equal(page.hasMore, offset < 2, `hasMore on page ${offset}`)
    seen.push(page.items[0].email)
  }
  t.equal(new Set(seen).size, 3, 'the pages do not overlap')
  t.same((await get(`/admin/users?q=${tag}&limit=3`)).json().items.map((u: { email: string }) => u.email), seen, 'newest first, one order')
  t.equal((await get('/admin/users?status=gone')).statusCode, 400, 'an unknown status')
  t.equal((await get('/admin/users?limit=101')).statusCode, 400, 'a page over 100')
  t.equal((await get('/admin/users?sort=email')).statusCode, 400, 'an unknown parameter')
})

t.test("an account's page: sessions with device names, keys, endpoints, counts, acquisition code", async (t) => {
  const dave = await signedInUser(app, { email: uniqueEmail('dave'), signUpBody: { acquisition_code: 'spring' } })
  const id = await userIdOf(m, dave.email)
  await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: dave.email, password: dave.password },
    headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36' } })
  const key = await issueKey(app, dave.auth, { name: 'nightly', scopes: ['reports:read'] })
  const hook = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: dave.auth, payload: { url: 'http://127.0.0.1:9/hook', events: ['report.ready'] } })
  t.equal(hook.statusCode, 201)

  const page = await get(`/admin/users/${id}`)
  t.equal(page.statusCode, 200)
  const body = page.json()
  t.match(body, { id, email: dave.email, role: 'user', acquisitionCode: 'spring', reports: 0, watches: 0 })
  t.equal(body.sessions.length, 2)
  t.ok(body.sessions.some((s: { device: string | null }) => s.device === 'Chrome on Linux'), 'device names as the sessions card shows them')
  t.same(body.apiKeys.map((k: Record<string, unknown>) => ({ id: k.id, name: k.name, scopes: k.scopes, prefix: k.prefix })),
    [{ id: key.id, name: 'nightly', scopes: ['reports:read'], prefix: key.prefix }])
  t.same(body.webhooks, [{ id: hook.json().id, url: 'http://127.0.0.1:9/hook', events: ['report.ready'], disabled: false }])
  t.notMatch(page.body, new RegExp(key.key.slice(-20)), 'never a key')

  const unknown = await get('/admin/users/00000000-0000-4000-8000-000000000000')
  t.equal(unknown.statusCode, 404, 'an unknown id')
  for (const bad of ['not-a-uuid', '00000000-0000-4000-8000-00000000000G', 'ABCDEF00-0000-4000-8000-00000000000A']) {
    const res = await get(`/admin/users/${bad}`)
    t.equal(res.statusCode, 404, `a malformed id: ${bad}, as on every route`)
  }
})

t.test('roles: an admin gives and takes them; audited, noticed, and seen by GET /auth/info', async (t) => {
  const erin = await signedInUser(app)
  const id = await userIdOf(m, erin.email)
  t.equal((await inject(app, 'GET', '/auth/info', erin.auth)).json().role, 'user')
  mails.length = 0
  const res = await put(id, { role: 'support', reason: 'joined the desk' })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { id, role: 'support' })
  t.equal((await inject(app, 'GET', '/auth/info', erin.auth)).json().role, 'support', 'the holder sees it at once')
  const rows = await auditRows('admin.role', id)
  t.equal(rows.length, 1)
  t.equal(rows[0].actor_id, admin.id, 'the admin is the actor')
  t.same(rows[0].details, { from: 'user', to: 'support', reason: 'joined the desk' })
  t.ok(rows[0].ip, 'from the request')
  const notice = mails.find((mail) => mail.to === erin.email)
  t.ok(notice, 'the holder gets a notice')
  t.match(notice?.text, /support/)
  t.match(notice?.text, /joined the desk/)

  const again = await put(id, { role: 'support', reason: 'again' })
  t.equal(again.statusCode, 200, 'the same role again answers the account as it is')
  t.equal((await auditRows('admin.role', id)).length, 1, 'and changes nothing')
})

t.test('the last admin is never demoted; nobody changes their own role; bad input 400/404', async (t) => {
  const lone = await buildMfaApp(t)
  const only = await staffMember(lone, 'admin')
  const self = await lone.app.inject({ method: 'PUT', url: `/api/v1/admin/users/${only.id}/role`, headers: only.auth, payload: { role: 'user', reason: 'leaving' } })
  t.equal(self.statusCode, 409, 'not their own role')

  const second = await staffMember(lone, 'admin')
  const demoted = await lone.app.inject({ method: 'PUT', url: `/api/v1/admin/users/${only.id}/role`, headers: second.auth, payload: { role: 'user', reason: 'left' } })
  t.equal(demoted.statusCode, 200, 'with two admins, one may demote the other')
  // `only` is an admin no more: `second` is the last one, and a support member cannot act
  await lone.app.database.query('update users set role = $1 where id = $2', ['admin', only.id])
  await lone.app.database.query('update users set role = $1 where id = $2', ['support', second.id])
  const last = await lone.app.inject({ method: 'PUT', url: `/api/v1/admin/users/${only.id}/role`, headers: only.auth, payload: { role: 'support', reason: 'x' } })
  t.equal(last.statusCode, 409)

  const target = await userIdOf(m, people.plain.email)
  const cases: Array<[string, string, object, number, RegExp?]> = [
    ['an unknown role', target, { role: 'owner', reason: 'x' }, 400, /^body role: must be one of user, support, admin/],
    ['an empty reason', target, { role: 'support', reason: '' }, 400, /^body reason/],
    ['a blank reason', target, { role: 'support', reason: '   ' }, 400, /^body reason/],
    ['no reason', target, { role: 'support' }, 400, /reason/],
    ['an unknown account', '00000000-0000-4000-8000-000000000000', { role: 'support', reason: 'x' }, 404],
    ['a malformed id', 'nope', { role: 'support', reason: 'x' }, 404]
  ]
  for (const [what, id, body, status, message] of cases) {
    const res = await put(id, body)
    t.equal(res.statusCode, status, what)
    if (message) t.match(res.json().message, message, `${what}: the field is named`)
  }
  t.equal((await auditRows('admin.role', target)).length, 0, 'none of it changed anything')
  t.equal((await app.database.query('select role from users where id = $1', [target]))[0].role, 'user')
})
