// Revocation that cannot be outrun (src/services/sessions/ended.ts, src/db/commits.ts, drizzle/0012):
// two instances on one database, the second (B) deaf to session_ended and report_deleted, as a
// LISTEN connection that drops NOTIFYs would be, so that only its reconcile can tell it. A
// revocation stamped 90 s before it commits (on PostgreSQL also held open while B reconciles past a
// later one), a session ended by moving expires_at into the past, and a deleted report all reach B
// within SESSION_RECONCILE_S. While B's reconcile keeps failing, B asks the database on each Bearer
// request: an ended session or a revoked API key is refused, a live session accepted, and 503 when the
// database cannot answer.
// The same reconcile failing because PostgreSQL is away: test/faults/revocation-outage.test.ts.
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../src/db/client.ts'
import { build, freshDatabase, signedInUser } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { ACCESS_DENIED, claims, FAST_ARGON2, info } from '../accounts/support.ts'
import { issueKey } from '../api-keys/support.ts'
import { createReport } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { listen, parseEvents, rawStream } from '../streams/client.ts'
import { sameDatabase } from '../streams/databases.ts'

const RECONCILE_S = 1
const ENV = { ...FAST_ARGON2, SESSION_RECONCILE_S: String(RECONCILE_S), SIGNUP_FREE_REPORTS: '5' }
/** a reconcile interval and then some, with room for a loaded machine: what a revocation whose NOTIFY was lost may take */
const RECONCILE_BOUND_MS = 5000
/** how long B's reconcile may fail before B checks Bearer requests against the database, and then some */
const OUT_OF_SYNC_BOUND_MS = 3 * RECONCILE_S * 1000 + RECONCILE_BOUND_MS

/** another instance's handle on the database whose LISTEN callbacks never hear these channels */
function deafTo (database: Database, channels: string[]): Database {
  return {
    ...database,
    listen: async (channel, onMessage, onListen) => await database.listen(channel, channels.includes(channel) ? () => {} : onMessage, onListen)
  }
}

const database = await freshDatabase(t)
const a = await build(t, ENV, { database })
const b = await build(t, ENV, { database: deafTo(await sameDatabase(t, database), ['session_ended', 'report_deleted']) })
await seedReportData(database.db)
const bBase = await listen(b)

async function signedIn () {
  const user = await signedInUser(a)
  return { ...user, sid: claims(user.token).sid as string }
}

async function refusedOn (t: Test, app: FastifyInstance, token: string, timeoutMs: number, what: string) {
  const res = await until(async () => {
    const r = await info(app, token)
    return r.statusCode === 401 ? r : undefined
  }, { timeoutMs, intervalMs: 20, what })
  t.has(res.json(), ACCESS_DENIED, what)
}

t.test('a revocation committed 90 s after its stamp, its NOTIFY lost, is refused on B within SESSION_RECONCILE_S', async (t) => {
  const held = await signedIn()
  t.equal((await info(b, held.token)).statusCode, 200, 'B accepts the token first')
  // the trigger records and announces the revocation; its stamp is then moved 90 s back, as if the
  // transaction had been open that long after the statement
  const statements = [
    `update sessions set ended_at = now() where public_id = '${held.sid}'`,
    `update session_revocations set revoked_at = revoked_at - interval '90 seconds' where public_id = '${held.sid}'`
  ]
  if (database.kind === 'pglite') {
    // one embedded connection: no transaction can stay open while another runs
    await database.pglite!.transaction(async (tx) => { for (const s of statements) await tx.exec(s) })
  } else {
    // another connection holds the revoking transaction open while B reconciles past a revocation
    // that began later and committed first
    const holder = await sameDatabase(t, database)
    let release = () => {}
    const released = new Promise<void>((resolve) => { release = resolve })
    let stamped = () => {}
    const wasStamped = new Promise<void>((resolve) => { stamped = resolve })
    const transaction = holder.sql!.begin(async (tx) => {
      for (const s of statements) await tx.unsafe(s)
      stamped()
      await released
    })
    await wasStamped
    const later = await signedIn()
    await database.query('update sessions set ended_at = now() where public_id = $1', [later.sid])
    await refusedOn(t, b, later.token, RECONCILE_BOUND_MS, 'B refuses a later revocation that committed first')
    // a few more reconciles while the first revocation is still open
    await sleep(2 * RECONCILE_S * 1000)
    t.equal((await info(b, held.token)).statusCode, 200, 'the open revocation is not committed yet: B still accepts its token')
    release()
    await transaction
  }
  await refusedOn(t, b, held.token, RECONCILE_BOUND_MS, 'B refuses the token once the revocation commits')
  t.equal((await info(a, held.token)).statusCode, 401, 'and A, which heard the NOTIFY')
})

t.test('expires_at moved into the past ends the session: recorded, and refused on B within SESSION_RECONCILE_S', async (t) => {
  const user = await signedIn()
  const kept = await signedIn()
  t.equal((await info(b, user.token)).statusCode, 200, 'B accepts the token first')
  // moving an expiry on, or back to a time still ahead, ends nothing
  await database.query('update sessions set expires_at = expires_at + interval \'1 hour\' where public_id = $1', [kept.sid])
  await database.query('update sessions set expires_at = now() + interval \'1 hour\' where public_id = $1', [kept.sid])
  await database.query('update sessions set expires_at = now() - interval \'1 day\' where public_id = $1', [user.sid])
  await refusedOn(t, b, user.token, RECONCILE_BOUND_MS, 'B refuses the JWT of a session whose expires_at was moved into the past')
  await refusedOn(t, a, user.token, RECONCILE_BOUND_MS, 'and A')
  const recorded = await database.query<{ id: string }>('select public_id::text as id from session_revocations where public_id in ($1, $2)', [user.sid, kept.sid])
  t.same(recorded, [{ id: user.sid }], 'the ended session is recorded; the one whose expiry is still ahead is not')
  t.equal((await info(b, kept.token)).statusCode, 200, 'the session whose expiry is still ahead is accepted')
})

t.test('while B\'s reconcile keeps failing, B checks each Bearer request against the database', async (t) => {
  const live = await signedIn()
  const doomed = await signedIn()
  const key = await issueKey(a, live.auth)
  const reportsWithKey = async () => (await b.inject({ url: '/api/v1/report', headers: key.auth })).statusCode
  t.equal((await info(b, doomed.token)).statusCode, 200, 'B accepts the token first')
  t.equal(await reportsWithKey(), 200, 'and the API key, now held in B\'s view')
  // the reconcile reads this column; the per-request check does not (an operator's mistake, say)
  await database.query('alter table session_revocations rename column txid to txid_away')
  let renamed = true
  t.teardown(async () => { if (renamed) await database.query('alter table session_revocations rename column txid_away to txid') })

  await database.query('update sessions set ended_at = now() where public_id = $1', [doomed.sid])
  await refusedOn(t, b, doomed.token, OUT_OF_SYNC_BOUND_MS, 'B refuses a session ended without a NOTIFY to it, its reconcile failing')
  t.equal(b.sessions.endedSetInSync(), false, 'B no longer trusts its ended set alone')
  t.equal((await info(b, live.token)).statusCode, 200, 'a live session\'s token is checked and accepted')
  await database.query('update api_keys set revoked_at = now() where id = $1', [key.id])
  t.equal(await reportsWithKey(), 401, 'an API key revoked without a NOTIFY to B is refused at once, its view notwithstanding')

  // the database cannot answer the check either: 503, never an unchecked answer from memory
  await database.query('alter table session_revocations rename to session_revocations_away')
  try {
    const res = await info(b, live.token)
    t.has([res.statusCode, res.json()], [503, { code: 503, message: 'service unavailable' }], 'a check the database cannot answer is 503')
  } finally {
    await database.query('alter table session_revocations_away rename to session_revocations')
  }

  await database.query('alter table session_revocations rename column txid_away to txid')
  renamed = false
  await until(() => b.sessions.endedSetInSync(), { timeoutMs: RECONCILE_BOUND_MS, what: 'B\'s reconcile to work again' })
  t.equal((await info(b, live.token)).statusCode, 200, 'the live token is accepted from memory again')
  t.equal((await info(b, doomed.token)).statusCode, 401, 'and the ended one refused')
})

t.test('a report deleted without a NOTIFY to B ends its stream on B within SESSION_RECONCILE_S', async (t) => {
  const user = await signedIn()
  const id = await createReport(a, user.auth)
  const stream = await rawStream(`${bBase}/api/v1/sse/${id}`, user.auth)
  t.teardown(() => { stream.abort() })
  t.equal(stream.status, 200, 'the stream opens on B')
  await stream.waitForText((x) => x.includes('event: status'), 'the current state')
  t.equal((await a.inject({ method: 'DELETE', url: `/api/v1/report/${id}`, headers: user.auth })).statusCode, 204, 'the report is deleted on A')
  await stream.waitForEnd(RECONCILE_BOUND_MS)
  t.ok(stream.complete(), 'the stream ends whole')
  t.same(parseEvents(stream.text()).at(-1), { id: undefined, event: 'end', data: { reason: 'report-deleted' } }, 'its last event is end, report-deleted')
  const [row] = await database.query<{ n: number }>('select count(*)::int as n from report_deletions where report_id = $1', [id])
  t.equal(row.n, 1, 'the deletion is recorded')
})
