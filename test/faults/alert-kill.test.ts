// An alert worker process (`npm run worker`) killed with SIGKILL in the middle of a batch: it has
// claimed the watched profiles an import marked and computed them, and waits to write their alerts
// (a lock held on alert_sequences, which the batch's transaction writes first). Killed there, it
// leaves the profiles pending under its lease; once the lease runs out another worker process takes
// them, and every alert is raised exactly once (docs/decisions/watches-and-alerts.md, Watches and
// alerts). The server runs no workers of its own.
import t from 'tap'
import { freshDatabase, onPostgres } from '../helper.ts'
import { call, signedInOn, startServer, startWorker } from '../peers/server-process.ts'
import { seedReportData } from '../reports/seed.ts'
import { databaseUrl } from '../streams/databases.ts'
import { userIdOf } from '../watches/support.ts'
import { NEW_ALERTS, NEW_DATA, ndjson, readyReportRow } from '../alerts/data.ts'
import { holdTable } from './support.ts'

const skip = onPostgres ? false : 'several processes on one database need PostgreSQL (set TEST_DATABASE_URL); PGlite lives inside one process'
const TOKEN = 'ingest-token-0123456789abcdef'

t.test('an alert worker killed mid-batch: another worker raises the batch, every alert once', { skip }, async (t) => {
  const database = await freshDatabase(t)
  await seedReportData(database.db)
  const url = databaseUrl(database)
  const server = await startServer(t, { DATABASE_URL: url, WORKERS: '0', INGEST_TOKEN: TOKEN })
  const first = await startWorker(t, { DATABASE_URL: url, WORKERS: '1', PGAPPNAME: 'worker-a' })
  t.teardown(() => { if (!t.passing()) t.comment(`server:\n${server.output().slice(-10_000)}\nworker a:\n${first.output()}`) })

  const user = await signedInOn(server, 'alert-kill')
  const reportId = await readyReportRow(database, userIdOf(user.token))
  t.equal((await call(server, 'POST', `/report/${reportId}/watch`, user.auth)).status, 201)

  const lock = await holdTable(t, url, 'alert_sequences')
  const ingested = await fetch(`${server.url}/api/v1/ingest`, {
    method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' }, body: ndjson(NEW_DATA)
  })
  t.equal(ingested.status, 200, await ingested.text())

  const waiting = async () => (await database.query<{ n: number }>(
    "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and application_name = 'worker-a'"))[0].n
  const until = Date.now() + 30_000
  while (await waiting() === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal(await waiting(), 1, 'the worker waits to write the batch it computed')
  const leased = async () => (await database.query<{ profile_id: string }>('select profile_id from alert_pending where leased_until > now() order by profile_id')).map((r) => r.profile_id)
  t.same(await leased(), ['p-1', 'p-4'], 'its profiles are leased to it')

  first.child.kill('SIGKILL')
  t.equal(await first.exited, null, 'the worker is gone')
  t.equal(first.child.signalCode, 'SIGKILL')
  await lock.release()
  const count = async () => (await database.query<{ n: number }>('select count(*)::int as n from alerts'))[0].n
  t.equal(await count(), 0, 'nothing of the batch was written')
  t.same(await leased(), ['p-1', 'p-4'], 'the profiles stay pending under the dead worker\'s lease')

  const second = await startWorker(t, { DATABASE_URL: url, WORKERS: '1', PGAPPNAME: 'worker-b' })
  t.teardown(() => { if (!t.passing()) t.comment(`worker b:\n${second.output()}`) })
  const pending = async () => (await database.query<{ n: number }>('select count(*)::int as n from alert_pending'))[0].n
  const done = Date.now() + 90_000
  while ((await pending() > 0 || await count() < NEW_ALERTS) && Date.now() < done) await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(await pending(), 0, 'the batch was taken over once the lease ran out')
  t.equal(await count(), NEW_ALERTS, 'every alert, once')
  const listed = await call(server, 'GET', '/alerts?limit=100', user.auth)
  t.equal(listed.json.total, NEW_ALERTS)
  t.same(new Set(listed.json.items.map((a: { source: string, month: string }) => `${a.source} ${a.month}`)).size, NEW_ALERTS, 'one per source and month')

  // the same data again: nothing changes, nothing is raised
  const again = await fetch(`${server.url}/api/v1/ingest`, {
    method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' }, body: ndjson(NEW_DATA)
  })
  t.equal(again.status, 200, await again.text())
  t.equal(await pending(), 0)
  t.equal(await count(), NEW_ALERTS)
  t.equal(second.child.exitCode, null, 'the second worker runs on')
})
