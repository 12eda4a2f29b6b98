// Idempotency keys under concurrency, on PostgreSQL: a first request held inside its handler (a row
// lock taken by another connection) makes a retry 409 until it answers, then the retry is its replay;
// two app instances on one database, each with its own connections, given one key by many concurrent
// requests, do the work once (one draft, one credit). PGlite is one embedded connection: nothing can
// hold a request there while another runs, so this file runs on PostgreSQL only.
import t from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, freshDatabase, onPostgres, signedInUser, type SignedInUser } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { sameDatabase } from '../streams/databases.ts'

const skip = onPostgres ? false : 'holding one request while another runs needs PostgreSQL (set TEST_DATABASE_URL)'

const PROFILES = { profiles: [{ source: 'ig', username: 'jdoe' }] }
const withKey = (user: SignedInUser, key?: string) => ({ ...user.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) })
const create = (app: FastifyInstance, user: SignedInUser, key?: string) =>
  app.inject({ method: 'POST', url: '/api/v1/report', headers: withKey(user, key), payload: PROFILES })
const generate = (app: FastifyInstance, user: SignedInUser, id: string, key?: string) =>
  app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: withKey(user, key) })
const count = async (app: FastifyInstance, sql: string, params: unknown[]) =>
  Number((await app.database.query<{ n: number | string }>(sql, params))[0].n)
const drafts = (app: FastifyInstance, user: SignedInUser) =>
  count(app, 'select count(*) as n from reports r join users u on u.id = r.user_id where u.email = $1', [user.email])
const credits = (app: FastifyInstance, user: SignedInUser) =>
  count(app, 'select report_credits as n from users where email = $1', [user.email])

t.test('a retry while the first request is held: 409, then the replay of its answer', { skip }, async (t) => {
  const app = await build(t)
  await seedReportData(app.db)
  const user = await signedInUser(app)
  const id = (await create(app, user)).json().id as string
  const holder = await sameDatabase(t, app.database)
  let first: ReturnType<typeof generate> | undefined
  await holder.sql!.begin(async (tx) => {
    // generate updates this row: the first request waits inside its handler, its key claimed
    await tx`select id from reports where id = ${id} for update`
    first = generate(app, user, id, 'held')
    await until(async () => await count(app, "select count(*) as n from idempotency_keys where key = 'held'", []) > 0, { what: 'the claim' })
    const retry = await generate(app, user, id, 'held')
    t.equal(retry.statusCode, 409)
    t.has(retry.json(), { code: 409, message: 'a request with this idempotency key is still running' })
  })
  const answered = await first!
  t.equal(answered.statusCode, 202)
  t.notOk(answered.headers['idempotent-replayed'])
  const replay = await generate(app, user, id, 'held')
  t.equal(replay.statusCode, 202)
  t.equal(replay.headers['idempotent-replayed'], 'true')
  t.equal(replay.body, answered.body)
  t.equal(await credits(app, user), 0, 'the one free credit, taken once')
})

t.test('two instances on one database, one key, many concurrent requests: the work is done once', { skip }, async (t) => {
  const database = await freshDatabase(t)
  // one after the other: the first start creates the queue's schema
  const a = await build(t, {}, { database })
  const b = await build(t, {}, { database: await sameDatabase(t, database) })
  await seedReportData(a.db)
  const user = await signedInUser(a)
  const instances = [a, b]
  const N = 12

  const created = await Promise.all(Array.from({ length: N }, (_, i) => create(instances[i % 2], user, 'one-draft')))
  const done = created.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined)
  t.equal(done.length, 1, 'one request did the work')
  for (const r of created) {
    t.ok(r.statusCode === 409 || (r.statusCode === 201 && r.body === done[0].body), `every other one is 409 or the replay (${r.statusCode})`)
  }
  t.equal(await drafts(a, user), 1, 'one draft')
  const id = done[0].json().id as string

  const generated = await Promise.all(Array.from({ length: N }, (_, i) => generate(instances[i % 2], user, id, 'one-credit')))
  const queued = generated.filter((r) => r.statusCode === 202 && r.headers['idempotent-replayed'] === undefined)
  t.equal(queued.length, 1, 'one request generated')
  for (const r of generated) t.ok(r.statusCode === 409 || (r.statusCode === 202 && r.body === queued[0].body), `the rest 409 or the replay (${r.statusCode})`)
  t.equal(await credits(a, user), 0, 'one credit consumed')

  // without a key, the same burst makes a draft per request: the key is what made it one
  await Promise.all(Array.from({ length: 4 }, (_, i) => create(instances[i % 2], user)))
  t.equal(await drafts(a, user), 5)
})
