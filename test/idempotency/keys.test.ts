// Idempotency-Key on POST /report and POST /report/{id}/generate: a retry of the same request within
// 24 h answers the first answer again (status, body, content type, `Idempotent-Replayed: true`)
// without doing the work twice; another request with the key is 422; while the first still runs,
// 409; a key is the user's own; an invalid header is 400; an answer that says nothing was done (402)
// gives the key back; past 24 h a key is free again and its row pruned; a claim whose request died
// is taken over by the same request after its lease.
import t from '../tap.ts'
import { build, signedInUser, type SignedInUser } from '../helper.ts'
import { seedReportData } from '../reports/seed.ts'
import { LEASE_MS, requestHash } from '../../src/services/idempotency/index.ts'
import { INVALID_KEY_MESSAGE, releases } from '../../src/plugins/idempotency.ts'

let app: Awaited<ReturnType<typeof build>>

t.before(async () => {
  app = await build(t)
  await seedReportData(app.db)
})

const PROFILES = { profiles: [{ source: 'ig', username: 'jdoe' }] }
const create = (user: SignedInUser, key: string | undefined, body: object = PROFILES) =>
  app.inject({ method: 'POST', url: '/api/v1/report', headers: { ...user.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) }, payload: body })
const generate = (user: SignedInUser, id: string, key?: string) =>
  app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: { ...user.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) } })
const userId = async (user: SignedInUser) =>
  (await app.database.query<{ id: string }>('select id from users where email = $1', [user.email]))[0].id
const drafts = async (user: SignedInUser) =>
  Number((await app.database.query<{ n: number | string }>('select count(*) as n from reports r join users u on u.id = r.user_id where u.email = $1', [user.email]))[0].n)
const credits = async (user: SignedInUser) =>
  Number((await app.database.query<{ n: number }>('select report_credits as n from users where email = $1', [user.email]))[0].n)

t.test('a retry of POST /report answers the first draft again, and makes none', async (t) => {
  const user = await signedInUser(app)
  const first = await create(user, 'create-1')
  t.equal(first.statusCode, 201)
  t.notOk(first.headers['idempotent-replayed'], 'the first answer is no replay')
  const again = await create(user, 'create-1', { profiles: [{ username: 'jdoe', source: 'ig' }] })
  t.equal(again.statusCode, 201, 'the same body in another key order is the same request')
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(again.body, first.body, 'the same body, byte for byte')
  t.equal(again.headers['content-type'], first.headers['content-type'])
  t.equal(await drafts(user), 1, 'one draft')
  t.equal((await create(user, undefined)).statusCode, 201, 'without the header every request does the work')
  t.equal(await drafts(user), 2)
})

t.test('a retry of generate answers 202 again and takes no second credit', async (t) => {
  const user = await signedInUser(app)
  const id = (await create(user, undefined)).json().id as string
  const before = await credits(user)
  const first = await generate(user, id, 'gen-1')
  t.equal(first.statusCode, 202)
  t.equal(await credits(user), before - 1, 'one credit')
  await app.database.query("update reports set status = 'ready' where id = $1", [id])
  const again = await generate(user, id, 'gen-1')
  t.equal(again.statusCode, 202, 'the first answer, though the report has moved on')
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.same(again.json(), first.json())
  t.equal(await credits(user), before - 1, 'no second credit')
  t.equal((await generate(user, id, 'gen-2')).statusCode, 403, 'a new key asks afresh')
})

t.test('the key with another body or path: 422, and nothing is done', async (t) => {
  const user = await signedInUser(app)
  const id = (await create(user, 'reuse')).json().id as string
  const otherBody = await create(user, 'reuse', { profiles: [{ source: 'fb', username: 'JOHN.DOE' }] })
  t.equal(otherBody.statusCode, 422)
  t.has(otherBody.json(), { code: 422, message: 'idempotency key reused with another request' })
  const otherPath = await generate(user, id, 'reuse')
  t.equal(otherPath.statusCode, 422)
  t.has(otherPath.json(), { code: 422, message: 'idempotency key reused with another request' })
  t.equal(await drafts(user), 1)
  t.equal((await app.database.query<{ status: string }>('select status from reports where id = $1', [id]))[0].status, 'draft', 'not generated')
})

t.test('while the first request runs: 409; a claim left by a request that died is taken over after its lease', async (t) => {
  const user = await signedInUser(app)
  const uid = await userId(user)
  // what a running request leaves: its claim, no answer yet (a real hold is in concurrency.test.ts, on PostgreSQL)
  const hash = requestHash('POST', '/api/v1/report', PROFILES)
  await app.database.query('insert into idempotency_keys (user_id, key, request_hash, created_at) values ($1, $2, $3, now())', [uid, 'running', hash])
  const res = await create(user, 'running')
  t.equal(res.statusCode, 409)
  t.has(res.json(), { code: 409, message: 'a request with this idempotency key is still running' })
  t.equal((await create(user, 'running', { profiles: [{ source: 'fb', username: 'JOHN.DOE' }] })).statusCode, 422, 'another request is still 422')
  t.equal(await drafts(user), 0)

  await app.database.query(`update idempotency_keys set created_at = now() - make_interval(secs => ${LEASE_MS / 1000 + 1}) where user_id = $1 and key = $2`, [uid, 'running'])
  t.equal((await create(user, 'running', { profiles: [{ source: 'fb', username: 'JOHN.DOE' }] })).statusCode, 422,
    'an abandoned claim is not another request\'s to take')
  const taken = await create(user, 'running')
  t.equal(taken.statusCode, 201, 'the same request takes the abandoned claim over and does the work')
  t.notOk(taken.headers['idempotent-replayed'])
  t.equal(await drafts(user), 1)
  const replay = await create(user, 'running')
  t.equal(replay.headers['idempotent-replayed'], 'true')
  t.equal(replay.body, taken.body)
})

t.test('a key is its user\'s: another user\'s same key is independent', async (t) => {
  const a = await signedInUser(app)
  const b = await signedInUser(app)
  const ra = await create(a, 'shared')
  const rb = await create(b, 'shared', { profiles: [{ source: 'fb', username: 'JOHN.DOE' }] })
  t.equal(ra.statusCode, 201)
  t.equal(rb.statusCode, 201, 'no 422: not the same user')
  t.notOk(rb.headers['idempotent-replayed'])
  t.not(ra.json().id, rb.json().id)
  t.equal(await drafts(a), 1)
  t.equal(await drafts(b), 1)
})

t.test('an invalid Idempotency-Key: 400 in the GeneralError shape, nothing done', async (t) => {
  const user = await signedInUser(app)
  for (const [key, what] of [['x'.repeat(256), '256 characters'], ['clé', 'not ASCII'], ['', 'empty']] as const) {
    const res = await create(user, key)
    t.equal(res.statusCode, 400, what)
    t.has(res.json(), { code: 400, message: INVALID_KEY_MESSAGE }, what)
  }
  t.equal((await create(user, 'x'.repeat(255))).statusCode, 201, '255 printable characters')
  t.equal((await create(user, ' a key with spaces ~!')).statusCode, 201, 'spaces and punctuation are printable')
  t.equal(await drafts(user), 2)
})

t.test('an answer that says nothing was done (402) gives the key back: the retry does the work', async (t) => {
  const user = await signedInUser(app)
  const id = (await create(user, undefined)).json().id as string
  await app.database.query('update users set report_credits = 0 where email = $1', [user.email])
  const broke = await generate(user, id, 'pay-then-retry')
  t.equal(broke.statusCode, 402)
  await app.database.query('update users set report_credits = 1 where email = $1', [user.email])
  const paid = await generate(user, id, 'pay-then-retry')
  t.equal(paid.statusCode, 202, 'credits bought: the same key now generates')
  t.notOk(paid.headers['idempotent-replayed'])
  t.equal(await credits(user), 0)

  t.same([500, 502, 503, 429, 402].map(releases), [true, true, true, true, true], 'faults, budgets and missing credits give the key back')
  t.same([200, 201, 202, 400, 403, 404, 409].map(releases), [false, false, false, false, false, false, false], 'the rest is kept')

  const missing = await generate(user, '00000000-0000-4000-8000-000000000000', 'not-found')
  t.equal(missing.statusCode, 404)
  const again = await generate(user, '00000000-0000-4000-8000-000000000000', 'not-found')
  t.equal(again.statusCode, 404, 'an answer about the request itself is kept and replayed')
  t.equal(again.headers['idempotent-replayed'], 'true')
})

t.test('after 24 h a key is free again, and its row is pruned', async (t) => {
  const user = await signedInUser(app)
  const uid = await userId(user)
  const first = await create(user, 'day-old')
  await app.database.query("update idempotency_keys set created_at = now() - interval '24 hours 1 second' where user_id = $1", [uid])
  const later = await create(user, 'day-old')
  t.equal(later.statusCode, 201)
  t.notOk(later.headers['idempotent-replayed'], 'not replayed: the work is done again')
  t.not(later.json().id, first.json().id)
  t.equal(await drafts(user), 2)
  await app.database.query("update idempotency_keys set created_at = now() - interval '25 hours' where user_id = $1", [uid])
  const other = await create(user, 'day-old', { profiles: [{ source: 'fb', username: 'JOHN.DOE' }] })
  t.equal(other.statusCode, 201, 'an expired key is no 422 for another request either')

  await create(user, 'fresh')
  await app.database.query("update idempotency_keys set created_at = now() - interval '25 hours' where user_id = $1 and key = 'day-old'", [uid])
  t.equal(await app.idempotency.prune(), 1, 'the expired row is deleted')
  const left = await app.database.query<{ key: string }>('select key from idempotency_keys where user_id = $1', [uid])
  t.same(left.map((r) => r.key), ['fresh'], 'the fresh one stays')
})
