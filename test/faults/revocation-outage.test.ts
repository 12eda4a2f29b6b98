// PostgreSQL stopped under a server whose ended-session set can no longer be reconciled: once its
// reconcile has failed for SESSION_RECONCILE_S x 3, a Bearer request on a route served from memory
// (GET /auth/info, kept for a minute) is checked against the database, so it answers 503 instead of
// an unchecked 200; once the database is back and a reconcile has read everything committed
// meanwhile, the same request is served again (src/services/sessions/ended.ts, src/plugins/jwt.ts).
// The reconcile failing while the database answers: test/sessions/revocation-cursor.test.ts.
import t from 'tap'
import { onPostgres } from '../helper.ts'
import { clusterUnavailable, startCluster } from '../peers/postgres-cluster.ts'
import { call, signedInOn, startServer } from '../peers/server-process.ts'
import { until } from '../peers/wait.ts'

const RECONCILE_S = 1
/** three reconcile intervals, and room for a loaded machine */
const OUT_OF_SYNC_BOUND_MS = 3 * RECONCILE_S * 1000 + 7000
const RECOVERY_BOUND_MS = 15_000
const UNAVAILABLE = { code: 503, message: 'service unavailable', reason: 'unavailable' }

const skip = !onPostgres
  ? 'runs in the PostgreSQL run of the suite (TEST_DATABASE_URL set), on a throwaway cluster of its own'
  : clusterUnavailable() ?? false

t.test('PostgreSQL away for longer than 3 reconcile intervals: Bearer requests answered from memory become 503', { skip }, async (t) => {
  const cluster = await startCluster(t)
  const server = await startServer(t, { DATABASE_URL: cluster.url, WORKERS: '0', SESSION_RECONCILE_S: String(RECONCILE_S) })
  t.teardown(() => { if (!t.passing()) t.comment(`server log (end):\n${server.output().slice(-20_000)}`) })
  const user = await signedInOn(server, 'revocation-outage')
  const infoStatus = async () => (await call(server, 'GET', '/auth/info', user.auth, undefined, { timeoutMs: 30_000 })).status
  t.equal(await infoStatus(), 200, 'GET /auth/info, now kept in memory')

  await cluster.stop()
  const stoppedAt = Date.now()
  const refused = await until(async () => {
    const res = await call(server, 'GET', '/auth/info', user.auth, undefined, { timeoutMs: 30_000 })
    return res.status === 503 ? res : undefined
  }, { timeoutMs: OUT_OF_SYNC_BOUND_MS, intervalMs: 50, what: 'GET /auth/info to be checked against the database' })
  t.same(refused.json, UNAVAILABLE, `503 service unavailable (${Date.now() - stoppedAt} ms after the stop)`)
  const next = []
  for (let i = 0; i < 5; i++) next.push(await infoStatus())
  t.same(next, [503, 503, 503, 503, 503], 'and every request after it while the database is away')

  await cluster.start()
  await until(async () => await infoStatus() === 200, { timeoutMs: RECOVERY_BOUND_MS, intervalMs: 50, what: 'GET /auth/info to be served again' })
  t.pass('served again once the database is back')
  t.equal(server.child.exitCode, null, 'the server process is still running')
})
