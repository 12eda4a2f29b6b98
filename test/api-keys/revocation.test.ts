// A revoked key is refused on every instance within a second (drizzle/0009's trigger on the
// session_ended path, src/services/api-keys/view.ts): two app instances on one database (on
// PostgreSQL each with its own connections and LISTEN), the key revoked on A after B has it in its
// view; a revocation whose NOTIFY never came is found by B's reconcile within SESSION_RECONCILE_S.
// The NOTIFY reaches B in milliseconds and the reconcile runs every second here; the waits below are
// wider than either, so a loaded machine does not fail them, and each prints how long it took.
import t, { type Test } from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { build, CHEAP_ARGON2, freshDatabase, signedInUser } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { withoutTriggers } from '../accounts/support.ts'
import { sameDatabase } from '../streams/databases.ts'
import { issueKey, UNAUTHORIZED } from './support.ts'

const ENV = { ...CHEAP_ARGON2, SESSION_RECONCILE_S: '1' }
const database = await freshDatabase(t)
const a = await build(t, ENV, { database })
const b = await build(t, ENV, { database: await sameDatabase(t, database) })
const reports = (app: FastifyInstance, auth: Record<string, string>) => app.inject({ url: '/api/v1/report', headers: auth })

async function refusedWithin (t: Test, auth: Record<string, string>, timeoutMs: number, what: string) {
  const started = Date.now()
  const res = await until(async () => {
    const r = await reports(b, auth)
    return r.statusCode === 401 ? r : undefined
  }, { timeoutMs, intervalMs: 20, what })
  t.has(res.json(), UNAUTHORIZED, what)
  const took = Date.now() - started
  t.comment(`${what}: refused after ${took} ms`)
  return took
}

t.test('revoked on A: refused on B, B having held the key in its view', async (t) => {
  const owner = await signedInUser(a)
  const key = await issueKey(a, owner.auth)
  t.equal((await reports(b, key.auth)).statusCode, 200, 'B accepts the key A issued')
  t.equal((await reports(b, key.auth)).statusCode, 200, 'from its view')
  t.equal((await a.inject({ method: 'DELETE', url: `/api/v1/auth/api-keys/${key.id}`, headers: owner.auth })).statusCode, 204)
  t.has((await reports(a, key.auth)).json(), UNAUTHORIZED, 'A refuses it at once')
  await refusedWithin(t, key.auth, 10_000, 'B refuses it once it hears of the revocation')
})

t.test('a key deleted in SQL (an operator, a cascade) is refused on B', async (t) => {
  const owner = await signedInUser(a)
  const key = await issueKey(a, owner.auth)
  t.equal((await reports(b, key.auth)).statusCode, 200)
  await database.query('delete from api_keys where id = $1', [key.id])
  await refusedWithin(t, key.auth, 10_000, 'B refuses the deleted key')
})

t.test('a revocation whose NOTIFY never came: B\'s reconcile finds it', async (t) => {
  const owner = await signedInUser(a)
  const key = await issueKey(a, owner.auth)
  t.equal((await reports(b, key.auth)).statusCode, 200)
  // triggers off for this transaction: the row is revoked without a NOTIFY or a record
  await withoutTriggers(database, [`update api_keys set revoked_at = now() where id = '${key.id}'`])
  t.equal((await reports(b, key.auth)).statusCode, 200, 'nothing told B: its view still holds the key')
  await database.query('insert into session_revocations (public_id, user_id) values ($1, $2)', [key.id, (await a.inject({ url: '/api/v1/auth/info', headers: owner.auth })).json().id])
  await refusedWithin(t, key.auth, 10_000, 'refused by the reconcile')
})
