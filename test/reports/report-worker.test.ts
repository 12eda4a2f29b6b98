// Generation survives a dead worker, and a report that fails every attempt gives its credit back; a
// job sent on an instance with workers wakes one of them.
import t from '../tap.ts'
import { build, freshDatabase, signedInUser } from '../helper.ts'
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { GENERATE_QUEUE, reportQueue } from '../../src/jobs/queue.ts'
import { createReport, waitForStatus } from './report-wait.ts'
import { seedReportData } from './seed.ts'

const FAST_QUEUE = { REPORT_JOB_EXPIRE_S: '1', QUEUE_MAINTENANCE_S: '1' }

t.test('a worker that dies holding the job does not lose the report', async (t) => {
  const database = await freshDatabase(t)
  const api = await build(t, { ...FAST_QUEUE, WORKERS: '0' }, { database })
  await seedReportData(api.db)
  const u = await signedInUser(api)
  const id = await createReport(api, u.auth)
  t.equal((await api.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: u.auth })).statusCode, 202)

  // A consumer takes the job and dies without finishing it (a real pg-boss fetch, never completed).
  const taken = await api.queue.boss.fetch(GENERATE_QUEUE)
  t.equal(taken?.length, 1, 'the dying worker holds the job')
  t.equal((await api.inject({ url: `/api/v1/report/${id}`, headers: u.auth })).json().status, 'queued')

  // The next worker gets it once the job has expired.
  await build(t, { ...FAST_QUEUE, WORKERS: '1' }, { database })
  const done = await waitForStatus(api, u.auth, id, ['ready', 'failed'], 60_000)
  t.equal(done.json().status, 'ready')
  const info = await api.inject({ url: '/api/v1/auth/info', headers: u.auth })
  t.equal(info.json().reportCredits, 0, 'still exactly one credit consumed')
})

t.test('every attempt failing: the report is failed and the credit refunded', async (t) => {
  const app = await build(t, { ...FAST_QUEUE, WORKERS: '1' })
  await seedReportData(app.db)
  const u = await signedInUser(app)
  const id = await createReport(app, u.auth)
  // A real fault: the taxonomy table the loader reads is gone.
  await app.database.exec('alter table red_flags rename to red_flags_away')
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: u.auth })).statusCode, 202)
  const failed = await waitForStatus(app, u.auth, id, ['failed', 'ready'], 60_000)
  t.equal(failed.json().status, 'failed')
  const info = await app.inject({ url: '/api/v1/auth/info', headers: u.auth })
  t.equal(info.json().reportCredits, 1, 'credit refunded')
  const events = await app.database.query<{ kind: string, data: { status: string } }>(
    'select kind, data from report_events where report_id = $1 order by seq', [id])
  t.same(events.slice(-1).map((e) => [e.kind, e.data.status]), [['done', 'failed']])

  // After the fault is mended the report can be generated again (a failed report is retriable).
  await app.database.exec('alter table red_flags_away rename to red_flags')
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: u.auth })).statusCode, 202)
  t.equal((await waitForStatus(app, u.auth, id, ['ready', 'failed'], 60_000)).json().status, 'ready')
})

t.test('a generate whose job could not be sent after its commit sends it on the next call', async (t) => {
  const app = await build(t, { ...FAST_QUEUE, WORKERS: '1' })
  await seedReportData(app.db)
  const u = await signedInUser(app)
  const id = await createReport(app, u.auth)
  // A real fault between the two steps: the claim and the credit commit, the queue's insert fails
  // (pg-boss's job table is away), as when the database goes away or the process dies between them.
  await app.database.exec('alter table pgboss.job rename to job_away')
  const first = await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: u.auth })
  t.not(first.statusCode, 202, 'no 202 without a job')
  t.equal((await app.inject({ url: `/api/v1/report/${id}`, headers: u.auth })).json().status, 'queued', 'the claim committed')
  await app.database.exec('alter table pgboss.job_away rename to job')

  // The client tries again: the 202 now has a job behind it, and the report ends with one credit spent.
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: u.auth })).statusCode, 202)
  t.equal((await waitForStatus(app, u.auth, id, ['ready', 'failed'], 30_000)).json().status, 'ready')
  const info = await app.inject({ url: '/api/v1/auth/info', headers: u.auth })
  t.equal(info.json().reportCredits, 0, 'exactly one credit consumed')
})

t.test('a job sent on an instance with workers wakes one of them instead of waiting for its next poll', async (t) => {
  const app = await build(t, { WORKERS: '0' })
  const { boss } = app.queue
  const handled: string[] = []
  const waiters = new Map<string, () => void>()
  const ran = (reportId: string) => new Promise<void>((resolve) => waiters.set(reportId, resolve))
  const first = randomUUID()
  const firstRan = ran(first)
  await boss.send(GENERATE_QUEUE, { reportId: first })
  // a worker that polls every five minutes: its first fetch, as it starts, takes the first job; then
  // it sleeps for five minutes unless woken
  const worker = await boss.work<{ reportId: string }>(GENERATE_QUEUE, { batchSize: 1, pollingIntervalSeconds: 300 }, async ([job]) => {
    handled.push(job.data.reportId)
    waiters.get(job.data.reportId)?.()
  })
  t.teardown(() => boss.offWork(GENERATE_QUEUE))
  await firstRan
  const second = randomUUID()
  const secondRan = ran(second)
  await reportQueue(boss, app.config.queue, [worker]).send(second, randomUUID())
  // a fifth of the time the worker would sleep: a deadline, not a measure of speed
  const outcome = await Promise.race([secondRan.then(() => 'ran'), sleep(60_000, undefined, { ref: false }).then(() => 'still waiting after 60 s')])
  t.equal(outcome, 'ran', 'the second job ran well before the worker\'s next poll')
  t.same(handled, [first, second])
})
