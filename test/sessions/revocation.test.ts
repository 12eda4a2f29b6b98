// Revocation from the transaction (src/services/sessions/store.ts, drizzle/0005): a session ended however it
// ends (an operator's UPDATE, its user deleted by SQL, a revocation whose NOTIFY never came) makes its
// JWT refused; the ended set is read from session_revocations at start and every SESSION_RECONCILE_S;
// revocations no JWT can outlive are pruned. One process here, on PGlite and PostgreSQL; two processes
// on one PostgreSQL database: test/scale-out/revocation.test.ts.
import t, { type Test } from '../tap.ts'
import { build, freshDatabase, signedInUser } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { ACCESS_DENIED, claims, FAST_ARGON2, info, withoutTriggers } from '../accounts/support.ts'

const ENV = { ...FAST_ARGON2, SESSION_RECONCILE_S: '1' }
/** a reconcile interval and then some: what a revocation whose NOTIFY was lost may take */
const RECONCILE_BOUND_MS = 5000

const database = await freshDatabase(t)
const app = await build(t, ENV, { database })

async function signedInToken () {
  const { email, token } = await signedInUser(app)
  return { email, token, sid: claims(token).sid as string, sub: claims(token).sub as string }
}

const refusedWithin = async (t: Test, token: string, timeoutMs: number, what: string) => {
  const res = await until(async () => {
    const r = await info(app, token)
    return r.statusCode === 401 ? r : undefined
  }, { timeoutMs, intervalMs: 20, what })
  t.has(res.json(), ACCESS_DENIED, what)
}

t.test('an operator\'s UPDATE sessions SET ended_at = now() revokes the JWT', async (t) => {
  const { token, sid } = await signedInToken()
  t.equal((await info(app, token)).statusCode, 200)
  await app.database.query('update sessions set ended_at = now() where public_id = $1', [sid])
  await refusedWithin(t, token, RECONCILE_BOUND_MS, 'the JWT of a session ended in SQL')
  const [row] = await app.database.query<{ n: number }>('select count(*)::int as n from session_revocations where public_id = $1', [sid])
  t.equal(row.n, 1, 'the trigger recorded the revocation')
})

t.test('a user deleted by SQL: the cascade revokes their sessions\' JWTs', async (t) => {
  const { token, sub, sid } = await signedInToken()
  t.equal((await info(app, token)).statusCode, 200)
  await app.database.query('delete from users where id = $1', [sub])
  await refusedWithin(t, token, RECONCILE_BOUND_MS, 'the JWT of a deleted user')
  const rows = await app.database.query('select 1 from session_revocations where public_id = $1', [sid])
  t.equal(rows.length, 1, 'the deleted live session is recorded')
})

t.test('a revocation whose NOTIFY never came is found by the reconcile', async (t) => {
  const { token, sid, sub } = await signedInToken()
  t.equal((await info(app, token)).statusCode, 200)
  // triggers off (replica role, for this transaction only): the row ends without a NOTIFY or a record
  await withoutTriggers(app.database, [`update sessions set ended_at = now() where public_id = '${sid}'`])
  t.same(await app.database.query('select 1 from session_revocations where public_id = $1', [sid]), [], 'nothing recorded')
  t.equal((await info(app, token)).statusCode, 200, 'no NOTIFY came: still accepted')
  // the record the trigger would have written, without its NOTIFY
  await app.database.query('insert into session_revocations (public_id, user_id) values ($1, $2)', [sid, sub])
  await refusedWithin(t, token, RECONCILE_BOUND_MS, 'the JWT refused within SESSION_RECONCILE_S')
})

t.test('a new instance reads the ended set from session_revocations: a live session deleted outright', async (t) => {
  const { token, sid } = await signedInToken()
  // the row is gone, its ended_at with it: only session_revocations remembers
  await app.database.query('delete from sessions where public_id = $1', [sid])
  await refusedWithin(t, token, RECONCILE_BOUND_MS, 'refused here')
  const fresh = await build(t, ENV, { database })
  t.has((await info(fresh, token)).json(), ACCESS_DENIED, 'and by an instance started afterwards')
})

t.test('revocations older than JWT_TTL are pruned; younger ones stay', async (t) => {
  const { sid: recent } = await signedInToken()
  await app.database.query('update sessions set ended_at = now() where public_id = $1', [recent])
  const old = '00000000-0000-4000-8000-00000000beef'
  await app.database.query(
    'insert into session_revocations (public_id, revoked_at) values ($1, now() - make_interval(secs => $2))', [old, app.config.jwt.ttl + 60])
  await app.sessions.pruneRevocations()
  await app.sessions.pruneRevocations()
  t.same(await app.database.query('select 1 from session_revocations where public_id = $1', [old]), [], 'the old one is gone')
  t.equal((await app.database.query('select 1 from session_revocations where public_id = $1', [recent])).length, 1, 'the recent one stays')
})
