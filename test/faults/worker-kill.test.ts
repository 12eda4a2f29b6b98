// Issue 8, faults: a report worker process (`npm run worker`) killed with SIGKILL in the middle of a
// report. The server (no workers of its own) and two worker processes share one PostgreSQL
// database. Whichever worker takes the job is stopped half-way by a lock held on a table the report
// reads (its database session, named by PGAPPNAME, shows which one waits), then killed. The report
// completes on the other once the job's expiry hands it over (pg-boss), its stream carries every
// event in order, and the user paid one credit.
import t from 'tap'
import { freshDatabase, onPostgres } from '../helper.ts'
import { call, signedInOn, startServer, startWorker } from '../peers/server-process.ts'
import { seedReportData } from '../reports/seed.ts'
import { openEventSource, seen } from '../streams/client.ts'
import { databaseUrl } from '../streams/databases.ts'
import { holdTable } from './support.ts'

const skip = onPostgres ? false : 'several processes on one database need PostgreSQL (set TEST_DATABASE_URL); PGlite lives inside one process'

// a killed worker's job comes back after its expiry (long enough that the job is still on its first
// attempt when the kill comes, on a loaded machine too); the maintenance that notices runs every second
const QUEUE = { REPORT_JOB_EXPIRE_S: '20', QUEUE_MAINTENANCE_S: '1' }

t.test('a worker killed with SIGKILL mid-report: another worker completes it, one credit consumed', { skip }, async (t) => {
  const database = await freshDatabase(t)
  await seedReportData(database.db)
  const url = databaseUrl(database)
  const env = { DATABASE_URL: url, SIGNUP_FREE_REPORTS: '2', ...QUEUE }
  // one after the other: the first start creates the queue's schema
  const server = await startServer(t, { ...env, WORKERS: '0' })
  const workers = { a: await startWorker(t, { ...env, WORKERS: '1', PGAPPNAME: 'worker-a' }), b: await startWorker(t, { ...env, WORKERS: '1', PGAPPNAME: 'worker-b' }) }
  t.teardown(() => { if (!t.passing()) t.comment(`server:\n${server.output().slice(-10_000)}\nworker a:\n${workers.a.output()}\nworker b:\n${workers.b.output()}`) })

  const user = await signedInOn(server, 'worker-kill')
  const created = await call(server, 'POST', '/report', user.auth, { profiles: [{ source: 'ig', username: 'jdoe' }] })
  t.equal(created.status, 201)
  const id = created.json.id as string
  const stream = openEventSource(`${server.url}/api/v1/sse/${id}`, user.auth)
  t.teardown(() => stream.close())
  await stream.waitFor((r) => r.length === 1, 'the draft state')

  const lock = await holdTable(t, url, 'friendships')
  t.equal((await call(server, 'POST', `/report/${id}/generate`, user.auth)).status, 202)
  await stream.waitFor((r) => r.some((e) => e.data.stage === 'collecting'), 'the worker in the middle of the report')
  t.equal((await call(server, 'GET', '/auth/info', user.auth)).json.reportCredits, 1, 'the generate call took one credit')

  // the worker whose session waits for the lock holds the job
  const [waiting] = await database.query<{ name: 'worker-a' | 'worker-b' }>(
    'select application_name as name from pg_stat_activity where datname = current_database() and wait_event_type = \'Lock\' and application_name like \'worker-%\'')
  t.match(waiting?.name, /^worker-[ab]$/, 'one worker waits in the middle of the report')
  const doomed = waiting.name === 'worker-a' ? workers.a : workers.b
  const survivor = waiting.name === 'worker-a' ? workers.b : workers.a
  const job = () => database.query<{ state: string, retry_count: number }>(
    'select state, retry_count from pgboss.job where name = $1 and data->>\'reportId\' = $2', ['report-generate', id])
  t.same(await job(), [{ state: 'active', retry_count: 0 }], 'it holds the job, on its first attempt')
  doomed.child.kill('SIGKILL')
  t.equal(await doomed.exited, null, 'the first worker is gone')
  t.equal(doomed.child.signalCode, 'SIGKILL')
  const killedAt = Date.now()
  await lock.release()

  await stream.waitFor((r) => r.some((e) => e.type === 'done'), 'the report to be finished by the other worker', 60_000)
  const doneMs = Date.now() - killedAt
  // the draft's state, then seq 1, 2, 3 …: queued and collecting by the killed worker, collecting
  // again and the rest by the survivor
  const events = seen(stream).slice(1)
  t.same(events.map((e) => e.id), events.map((_, i) => String(i + 1)), `every event once and in order (done ${doneMs} ms after the kill)`)
  t.same(events.filter((e) => e.data.stage === 'collecting').length, 2, 'collecting twice: the report was begun again')
  t.same(events.at(-1), { id: String(events.length), event: 'done', data: { reportId: id, status: 'ready' } })

  const report = await call(server, 'GET', `/report/${id}`, user.auth)
  t.equal(report.json.status, 'ready')
  t.equal(report.json.items.length, 1, 'with its item')
  t.equal((await call(server, 'GET', '/auth/info', user.auth)).json.reportCredits, 1, 'one credit consumed in all')
  t.same(await job(), [{ state: 'completed', retry_count: 1 }], 'one job, completed on its second attempt')
  t.equal(survivor.child.exitCode, null, 'the other worker runs on')
})
