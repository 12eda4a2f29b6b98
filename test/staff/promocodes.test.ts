// /admin/promocodes: what `npm run promo` does, for staff. Support lists; an admin makes and deletes
// codes with a reason, each audited with the admin as actor; a code made here works at sign-up,
// a deleted one is refused; bad input 400, a code that exists 409, an unknown one 404.
import t from '../tap.ts'
import { uniqueEmail } from '../helper.ts'
import { buildMfaApp, inject } from '../mfa/support.ts'
import { info, PROMO_REFUSED, signup } from '../accounts/support.ts'
import { signedInUser } from '../helper.ts'
import { staffMember } from './support.ts'

const m = await buildMfaApp(t)
const { app } = m
const admin = await staffMember(m, 'admin')
const support = await staffMember(m, 'support')
const del = (code: string, payload: object) => app.inject({ method: 'DELETE', url: `/api/v1/admin/promocodes/${code}`, headers: admin.auth, payload })
const audit = (kind: string) => app.database.query<{ user_id: string | null, actor_id: string, details: Record<string, unknown> }>(
  'select user_id, actor_id, details from audit_events where kind = $1 order by id', [kind])

t.test('an admin makes a code; it works at sign-up; support and keys list it', async (t) => {
  const made = await inject(app, 'POST', '/admin/promocodes', admin.auth, { code: 'SPRING-25', maxUses: 2, credits: 3, expires: '2099-12-31', reason: 'spring campaign' })
  t.equal(made.statusCode, 201)
  t.match(made.json(), { code: 'SPRING-25', maxUses: 2, uses: 0, credits: 3, expires: '2099-12-31' })
  t.equal(made.headers.location, '/api/v1/admin/promocodes/SPRING-25')
  const rows = await audit('admin.promocode.create')
  t.equal(rows.length, 1)
  t.equal(rows[0].actor_id, admin.id)
  t.same(rows[0].details, { code: 'SPRING-25', maxUses: 2, credits: 3, expires: '2099-12-31', reason: 'spring campaign' })

  const email = uniqueEmail('promo')
  t.same((await signup(app, { email, promocode: 'SPRING-25' })).json(), { status: 'success' })
  const user = await signedInUser(app, { email, signUp: false })
  t.match((await info(app, user.token)).json(), { promocode: 'SPRING-25', reportCredits: 4 })

  const listed = (await inject(app, 'GET', '/admin/promocodes', support.auth)).json()
  t.same(listed.items.map((p: { code: string, uses: number }) => [p.code, p.uses]), [['SPRING-25', 1]])
  t.match(listed, { total: 1, hasMore: false })
  const plain = await inject(app, 'POST', '/admin/promocodes', admin.auth, { code: 'PLAIN', maxUses: 10, reason: 'ads' })
  t.match(plain.json(), { code: 'PLAIN', credits: 1, expires: null }, 'one credit and no expiry unless told')
  const paged = (await inject(app, 'GET', '/admin/promocodes?limit=1', support.auth)).json()
  t.match(paged, { total: 2, hasMore: true, items: [{ code: 'PLAIN' }] }, 'by code, paged')
})

t.test('bad input: 400 naming the field, 409 for a code that exists; nothing made', async (t) => {
  const cases: Array<[string, object, number, RegExp]> = [
    ['a code with a space', { code: 'NO SPACE', maxUses: 1, reason: 'x' }, 400, /body code/],
    ['no uses', { code: 'ZERO', maxUses: 0, reason: 'x' }, 400, /body maxUses/],
    ['a day that is not one', { code: 'BADDAY', maxUses: 1, expires: '2099-13-45', reason: 'x' }, 400, /body expires/],
    ['an empty reason', { code: 'NOREASON', maxUses: 1, reason: '' }, 400, /body reason/],
    ['a code that exists', { code: 'SPRING-25', maxUses: 5, reason: 'again' }, 409, /already exists/]
  ]
  for (const [what, body, status, message] of cases) {
    const res = await inject(app, 'POST', '/admin/promocodes', admin.auth, body)
    t.equal(res.statusCode, status, what)
    t.match(res.json().message, message, what)
  }
  t.equal((await app.database.query('select code from promocodes')).length, 2)
  t.equal((await audit('admin.promocode.create')).length, 2, 'no audit row for a refusal')
})

t.test('an admin deletes a code: refused from then on, audited; unknown 404', async (t) => {
  t.equal((await del('SPRING-25', { reason: '' })).statusCode, 400, 'a reason is needed')
  const gone = await del('SPRING-25', { reason: 'campaign over' })
  t.equal(gone.statusCode, 204)
  const rows = await audit('admin.promocode.delete')
  t.equal(rows.length, 1)
  t.equal(rows[0].actor_id, admin.id)
  t.same(rows[0].details, { code: 'SPRING-25', uses: 1, reason: 'campaign over' })
  t.same((await signup(app, { email: uniqueEmail('late'), promocode: 'SPRING-25' })).json(), PROMO_REFUSED, 'refused at sign-up')
  t.equal((await del('SPRING-25', { reason: 'again' })).statusCode, 404)
  t.equal((await del('NO%20SUCH', { reason: 'x' })).statusCode, 400, 'not a code at all')
  const bySupport = await app.inject({ method: 'DELETE', url: '/api/v1/admin/promocodes/PLAIN', headers: support.auth, payload: { reason: 'x' } })
  t.equal(bySupport.statusCode, 403)
})
