// GET /admin/audit: every account's rows, newest first, with the device named and the staff member
// as actor on staff rows; filtered by account, actor, kind (or a kind prefix) and time; paged; bad
// filters 400.
import t from '../tap.ts'
import { signedInUser } from '../helper.ts'
import { buildMfaApp, inject } from '../mfa/support.ts'
import { staffMember, userIdOf } from './support.ts'

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const m = await buildMfaApp(t)
const { app } = m
const admin = await staffMember(m, 'admin')
const support = await staffMember(m, 'support')
const get = async (query: string) => {
  const res = await inject(app, 'GET', `/admin/audit${query}`, support.auth)
  if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`)
  return res.json() as { items: Array<Record<string, unknown>>, total: number, hasMore: boolean }
}

const fay = await signedInUser(app)
const fayId = await userIdOf(m, fay.email)
await app.inject({ method: 'POST', url: '/api/v1/auth/signin', payload: { email: fay.email, password: 'wrong password here' }, headers: { 'user-agent': CHROME } })
const role = await app.inject({ method: 'PUT', url: `/api/v1/admin/users/${fayId}/role`, headers: { ...admin.auth, 'user-agent': CHROME }, payload: { role: 'support', reason: 'night shift' } })
// (no assertion out here: the root test would end at it, before the subtests below are made)
if (role.statusCode !== 200) throw new Error(`the role change failed: ${role.body}`)
await inject(app, 'POST', '/admin/promocodes', admin.auth, { code: 'AUDITED', maxUses: 1, reason: 'for the log' })

t.test("an account's rows, newest first, with the staff row's actor, device and details", async (t) => {
  const rows = await get(`?userId=${fayId}`)
  t.same(rows.items.map((r) => r.kind), ['admin.role', 'signin.failure', 'signin.success', 'signup'])
  t.equal(rows.total, 4)
  t.match(rows.items[0], { kind: 'admin.role', userId: fayId, actorId: admin.id, device: 'Chrome on Linux', details: { from: 'user', to: 'support', reason: 'night shift' } })
  t.ok(rows.items[0].ip)
  t.match(rows.items[1], { kind: 'signin.failure', actorId: null, device: 'Chrome on Linux', details: null })
  const ids = rows.items.map((r) => r.id as number)
  t.same([...ids].sort((a, b) => b - a), ids, 'newest first')
})

t.test('by actor, kind, prefix and time; paged', async (t) => {
  const byAdmin = await get(`?actorId=${admin.id}`)
  t.same(byAdmin.items.map((r) => r.kind), ['admin.promocode.create', 'admin.role'], 'every write of the admin')
  t.match(byAdmin.items[0], { userId: null, details: { code: 'AUDITED', reason: 'for the log' } })
  t.same((await get('?kind=admin.role')).items.map((r) => r.userId), [fayId])
  t.equal((await get('?kind=admin.*')).total, 2, 'a prefix')
  t.equal((await get(`?kind=signin.failure&userId=${fayId}`)).total, 1)

  const all = await get('?limit=100')
  const newest = all.items[0].createdAt as string
  t.equal((await get(`?from=${encodeURIComponent(newest)}`)).items[0].id, all.items[0].id, 'from is inclusive')
  t.equal((await get(`?to=${encodeURIComponent(newest)}&limit=100`)).items.some((r) => r.id === all.items[0].id), false, 'to is exclusive')
  t.equal((await get('?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z')).total, 0)

  const first = await get('?limit=2')
  const second = await get('?limit=2&offset=2')
  t.equal(first.hasMore, true)
  t.same([...first.items, ...second.items].map((r) => r.id), all.items.slice(0, 4).map((r) => r.id), 'pages follow each other')
})

t.test('bad filters 400 naming them', async (t) => {
  for (const [query, field] of [['?userId=nope', 'userId'], ['?actorId=ABC', 'actorId'], ['?kind=DROP TABLE', 'kind'], ['?from=yesterday', 'from'], ['?limit=0', 'limit'], ['?what=1', 'what']]) {
    const res = await inject(app, 'GET', `/admin/audit${query}`, support.auth)
    t.equal(res.statusCode, 400, query)
    t.match(res.json().message, new RegExp(field), `${query} names ${field}`)
  }
})
