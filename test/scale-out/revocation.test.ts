// Revocation and streams across two server processes on one PostgreSQL database: a sign-out on A ends
// the session's stream on B within a second (`event: end`), and a reset by recovery link on A
// revokes the account's API keys on B within a second; a revocation whose NOTIFY B never gets
// (triggers off for the transaction, the record written by hand) or sent while B's LISTEN connection
// was cut is honoured on B within SESSION_RECONCILE_S, its JWT refused and its stream ended. PGlite is
// embedded in one process, so this runs on PostgreSQL only (the single-process paths:
// test/sessions/revocation.test.ts and test/streams/session-end.test.ts).
import t from '../tap.ts'
import { freshDatabase, onPostgres } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { call, signedInOn, startServer, type ServerProcess } from '../peers/server-process.ts'
import { parseEvents, rawStream, type RawStream } from '../streams/client.ts'
import { databaseEnv } from '../streams/databases.ts'
import { seedReportData } from '../reports/seed.ts'
import { claims, withoutTriggers } from '../accounts/support.ts'
import { newLinkSecret } from '../../src/services/accounts/link-secrets.ts'

const skip = onPostgres ? false : 'needs PostgreSQL (set TEST_DATABASE_URL): two server processes on one database; PGlite lives inside one process'
/** SESSION_RECONCILE_S on both instances, and what a revocation without its NOTIFY may take (with room for a loaded machine) */
const RECONCILE_S = 1
const RECONCILE_BOUND_MS = 5000

t.test('two instances: sign-out, a lost NOTIFY and a cut LISTEN connection all reach B', { skip }, async (t) => {
  const database = await freshDatabase(t)
  const env = { ...databaseEnv(database), WORKERS: '0', SESSION_RECONCILE_S: String(RECONCILE_S), SIGNUP_FREE_REPORTS: '5' }
  const a = await startServer(t, { ...env, PGAPPNAME: 'pir-a' })
  // B's connections are named, so that the test can cut B's LISTEN connection alone
  const b = await startServer(t, { ...env, PGAPPNAME: 'pir-b' })
  await seedReportData(database.db)

  /** a user signed in on A, with a stream on B of a report of theirs */
  async function streamOnB (prefix: string) {
    const user = await signedInOn(a, prefix)
    const created = await call(b, 'POST', '/report', user.auth, { profiles: [{ source: 'ig', username: 'jdoe' }] })
    if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.json)}`)
    t.equal((await call(b, 'GET', '/auth/info', user.auth)).status, 200, `${prefix}: B accepts A's JWT`)
    const stream = await rawStream(`${b.url}/api/v1/sse/${created.json.id as string}`, user.auth)
    t.teardown(stream.abort)
    t.equal(stream.status, 200)
    await stream.waitForText((x) => x.includes('event: status'), 'the current state')
    return { ...user, stream, sid: claims(user.token).sid as string, sub: claims(user.token).sub as string }
  }

  const endsFor = async (s: RawStream, timeoutMs: number, what: string) => {
    await s.waitForEnd(timeoutMs)
    t.ok(s.complete(), `${what}: the stream ends whole`)
    t.same(parseEvents(s.text()).at(-1), { id: undefined, event: 'end', data: { reason: 'session-ended' } }, `${what}: its last event is end`)
  }
  const refusedOn = async (server: ServerProcess, token: string, timeoutMs: number, what: string) => {
    await until(async () => (await call(server, 'GET', '/auth/info', { authorization: `Bearer ${token}` })).status === 401,
      { timeoutMs, intervalMs: 20, what })
    t.pass(what)
  }

  // a sign-out on A: B's stream of that session ends within a second
  const first = await streamOnB('signout')
  t.equal((await call(a, 'POST', '/auth/signout', first.auth)).status, 200)
  await endsFor(first.stream, 1000, 'sign-out on A, stream on B')
  await refusedOn(b, first.token, 1000, 'B refuses the signed-out JWT')

  // ended without a NOTIFY: triggers off for the transaction, the record written as the trigger would
  const silent = await streamOnB('silent')
  await withoutTriggers(database, [
    `update sessions set ended_at = now() where public_id = '${silent.sid}'`,
    `insert into session_revocations (public_id, user_id) values ('${silent.sid}', '${silent.sub}')`])
  await refusedOn(b, silent.token, RECONCILE_BOUND_MS, 'B refuses a JWT whose revocation was never announced, within SESSION_RECONCILE_S')
  await endsFor(silent.stream, RECONCILE_BOUND_MS, 'the unannounced session\'s stream on B')
  await refusedOn(a, silent.token, RECONCILE_BOUND_MS, 'and so does A')

  // B's LISTEN connection cut, and a session ended on A at once (its NOTIFY may arrive while B reconnects)
  const cut = await streamOnB('cut')
  const [{ n }] = await database.query<{ n: number }>(
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
      where datname = current_database() and application_name = 'pir-b' and query ilike 'listen %'`)
  t.equal(n, 1, 'B\'s LISTEN connection is cut')
  t.equal((await call(a, 'POST', '/auth/signout', cut.auth)).status, 200)
  await refusedOn(b, cut.token, RECONCILE_BOUND_MS, 'B refuses the JWT signed out while its LISTEN was cut')
  await endsFor(cut.stream, RECONCILE_BOUND_MS, 'and ends its stream')

  // an operator's UPDATE in SQL and a user deleted in SQL (cascade) reach both instances
  const operator = await streamOnB('operator')
  await database.query('update sessions set ended_at = now() where public_id = $1', [operator.sid])
  await endsFor(operator.stream, 1000, 'an operator\'s UPDATE: the stream on B')
  await refusedOn(a, operator.token, 1000, 'A refuses the JWT the operator revoked')
  const deleted = await streamOnB('deleted')
  await database.query('delete from users where id = $1', [deleted.sub])
  await deleted.stream.waitForEnd(1000)
  t.match(parseEvents(deleted.stream.text()).at(-1), { event: 'end', data: { reason: /^(session-ended|report-deleted)$/ } },
    'a deleted user\'s stream on B ends (its session or its report, whichever is heard first)')
  await refusedOn(b, deleted.token, 1000, 'B refuses the deleted user\'s JWT')
  await refusedOn(a, deleted.token, 1000, 'and A')

  // a reset through the recovery link on A: an API key made before it is refused on B within a second
  const owner = await signedInOn(a, 'reset')
  const issued = await call(a, 'POST', '/auth/api-keys', owner.auth, { name: 'made before', scopes: ['reports:read'] })
  t.equal(issued.status, 201)
  const key = issued.json.key as string
  t.equal((await call(b, 'GET', '/report', { authorization: `Bearer ${key}` })).status, 200, 'B accepts the key')
  const { secret, hash } = newLinkSecret()
  await database.query(`insert into auth_tokens (hash, kind, user_id, expires_at)
    values ($1, 'recovery', $2, now() + interval '1 hour')`, [hash, claims(owner.token).sub])
  const reset = await call(a, 'POST', `/auth/recovery/${secret}`, {}, { password: 'a brand new passphrase 42' })
  t.match(reset.json, { status: 'success', revoked: { apiKeys: 1, webhooks: [] } }, 'the reset on A revoked the key')
  // the deadline counts from the reset's answer; an API key is refused on /report (/auth/* never takes one)
  await until(async () => (await call(b, 'GET', '/report', { authorization: `Bearer ${key}` })).status === 401,
    { timeoutMs: 1000, intervalMs: 20, what: 'B refuses the key within a second of the reset' })
  t.pass('B refuses the key within a second of the reset')
})
