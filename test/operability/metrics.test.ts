// Prometheus metrics on their own listener (METRICS_PORT), scraped over real HTTP: requests counted
// and timed per route pattern, open SSE streams, queue depth, job durations, the database; and
// the backlogs, the pool and the reconcile an operator alerts on; a worker process's own metrics;
// request ids (X-Request-ID, reqId in the log lines). (The database gone: test/operability/health.test.ts.) A web instance (WORKERS 0) and a worker
// instance (WORKERS 1) share one database, as a scaled-out deployment does.
import t from '../tap.ts'
import { build, logCapture, onPostgres, signedInUser } from '../helper.ts'
import { listenMetrics } from '../../src/startup.ts'
import { find, parse, scrape, type Sample } from './prometheus.ts'
import { createReport, waitForStatus } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { listen, rawStream } from '../streams/client.ts'
import { until } from '../peers/wait.ts'
import { startWorker } from '../peers/server-process.ts'
import { childDatabase } from '../foundation/support.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const web = await build(t, { METRICS_PORT: '0', WORKERS: '0' })
await seedReportData(web.db)
const webMetrics = (await listenMetrics(web, web.config))!
t.teardown(() => webMetrics.close())
const base = await listen(web)
const user = await signedInUser(web)

t.test('the listener: GET /metrics in the Prometheus text format; nothing else; not on the public listener', async (t) => {
  t.ok(webMetrics.port > 0, 'METRICS_PORT=0 picked a free port')
  const res = await fetch(`http://127.0.0.1:${webMetrics.port}/metrics`)
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const samples = parse(await res.text())
  t.ok(find(samples, 'process_cpu_user_seconds_total'), 'process metrics')
  t.ok(find(samples, 'nodejs_heap_size_used_bytes'), 'Node.js heap')
  const head = await fetch(`http://127.0.0.1:${webMetrics.port}/metrics`, { method: 'HEAD' })
  t.equal(head.status, 200)
  for (const [method, path] of [['GET', '/'], ['GET', '/api/v1/health'], ['POST', '/metrics']]) {
    const other = await fetch(`http://127.0.0.1:${webMetrics.port}${path}`, { method })
    t.equal(other.status, 404, `${method} ${path} is 404`)
    t.has(await other.json(), { code: 404, message: 'not found' })
  }
  const pub = await web.inject({ url: '/metrics' })
  t.equal(pub.statusCode, 404, 'the public listener has no /metrics')
})

t.test('METRICS_HOST: the listener is on loopback unless told otherwise, whatever HOST says', async (t) => {
  t.equal(webMetrics.address, '127.0.0.1', 'the default')
  const other = (await listenMetrics(web, { ...web.config, host: '0.0.0.0', metricsPort: 0 }))!
  t.teardown(() => other.close())
  t.equal(other.address, '127.0.0.1', 'HOST=0.0.0.0 does not expose it')
})

t.test('requests: counted and timed under the route pattern, never the raw URL', async (t) => {
  const before = (await scrape(webMetrics)).samples
  const count = (samples: Sample[], labels: Record<string, string>) => find(samples, 'pir_http_requests_total', labels)?.value ?? 0
  const id = await createReport(web, user.auth)
  for (let i = 0; i < 3; i++) t.equal((await web.inject({ url: `/api/v1/report/${id}`, headers: user.auth })).statusCode, 200)
  t.equal((await web.inject({ url: '/api/v1/report/00000000-0000-4000-8000-000000000000', headers: user.auth })).statusCode, 404)
  t.equal((await web.inject({ url: `/api/v1/no/such/${id}` })).statusCode, 404)
  t.equal((await web.inject({ url: '/api/v1/report', headers: user.auth })).statusCode, 200)

  const { samples, text } = await scrape(webMetrics)
  t.notOk(text.includes(id), 'no series names a report id')
  const route = '/api/v1/report/:id'
  t.equal(find(samples, 'pir_http_requests_total', { method: 'GET', route, status_code: '200' })?.value, 3)
  t.equal(find(samples, 'pir_http_requests_total', { method: 'GET', route, status_code: '404' })?.value, 1)
  const unmatched = { method: 'GET', route: 'unmatched', status_code: '404' }
  t.equal(count(samples, unmatched) - count(before, unmatched), 1, 'a URL that matches no route counts under one label')
  t.equal(find(samples, 'pir_http_requests_total', { method: 'POST', route: '/api/v1/report', status_code: '201' })?.value, 1)
  t.equal(find(samples, 'pir_http_request_duration_seconds_count', { method: 'GET', route, status_code: '200' })?.value, 3)
  const inf = find(samples, 'pir_http_request_duration_seconds_bucket', { method: 'GET', route, status_code: '200', le: '+Inf' })
  t.equal(inf?.value, 3, 'the histogram has its buckets')
  t.ok(find(samples, 'pir_http_request_duration_seconds_sum', { method: 'GET', route, status_code: '200' })!.value > 0)
})

t.test('the database: pool size, a ping, and on PostgreSQL the server\'s connections', async (t) => {
  const { samples } = await scrape(webMetrics)
  t.equal(find(samples, 'pir_db_up')?.value, 1)
  t.equal(find(samples, 'pir_db_pool_max_connections')?.value, onPostgres ? 10 : 1)
  t.ok(find(samples, 'pir_db_ping_seconds')!.value >= 0)
  const active = find(samples, 'pir_db_server_connections', { state: 'active' })
  if (onPostgres) t.ok(active && active.value >= 1, 'pg_stat_activity sees at least the scrape\'s own query')
  else t.notOk(find(samples, 'pir_db_server_connections'), 'PGlite has no server to ask')
})

t.test('backlogs: webhook deliveries pending, failed and late, and marked alerts, for an operator to alert on', async (t) => {
  const db = web.database
  const idle = (await scrape(webMetrics)).samples
  t.equal(find(idle, 'pir_webhook_deliveries', { state: 'pending' })?.value, 0)
  t.equal(find(idle, 'pir_webhook_oldest_due_seconds')?.value, 0, 'nothing due: age 0')
  t.equal(find(idle, 'pir_alert_pending_profiles')?.value, 0)
  t.equal(find(idle, 'pir_alert_oldest_pending_seconds')?.value, 0)

  const [{ id: userId }] = await db.query<{ id: string }>('select id from users where email = $1', [user.email])
  const [hook] = await db.query<{ id: string }>(
    'insert into webhook_endpoints (user_id, url, events, secret) values ($1, \'http://127.0.0.1:9/hook\', \'{report.ready}\', \'whsec_metrics\') returning id', [userId])
  t.teardown(() => db.query('delete from webhook_endpoints where id = $1', [hook.id]))
  // one due for 90 s (no worker here to take it), one due in an hour, one given up on
  await db.query(`insert into webhook_deliveries (endpoint_id, type, body, next_attempt_at) values
    ($1, 'webhook.test', '{}', now() - interval '90 seconds'), ($1, 'webhook.test', '{}', now() + interval '1 hour')`, [hook.id])
  await db.query('insert into webhook_deliveries (endpoint_id, type, body, status) values ($1, \'webhook.test\', \'{}\', \'failed\')', [hook.id])
  await db.query('insert into alert_pending (profile_id, created_at) values (\'metrics-backlog\', now() - interval \'120 seconds\')')
  t.teardown(() => db.query('delete from alert_pending where profile_id = \'metrics-backlog\''))

  const { samples } = await scrape(webMetrics)
  t.equal(find(samples, 'pir_webhook_deliveries', { state: 'pending' })?.value, 2, 'two pending, the later retry included')
  t.equal(find(samples, 'pir_webhook_deliveries', { state: 'failed' })?.value, 1)
  const late = find(samples, 'pir_webhook_oldest_due_seconds')!.value
  t.ok(late >= 90 && late < 3600, `the oldest due delivery is ${late} s late`)
  t.equal(find(samples, 'pir_alert_pending_profiles')?.value, 1)
  t.ok(find(samples, 'pir_alert_oldest_pending_seconds')!.value >= 120, 'the marked profile has waited two minutes')
})

t.test('the pool: connections in use and work waiting for one, counted in this process', { skip: onPostgres ? false : 'PGlite has no pool' }, async (t) => {
  const idle = (await scrape(webMetrics)).samples
  t.equal(find(idle, 'pir_db_pool_waiting')?.value, 0, 'nothing waits at rest')
  // a transaction holds a connection while the scrape runs
  await web.database.sql!.begin(async (tx) => {
    await tx`select 1`
    t.ok(find((await scrape(webMetrics)).samples, 'pir_db_pool_connections_in_use')!.value >= 1, 'the open transaction holds a connection')
  })
  // more slow statements than the pool has connections: the rest wait
  const sleeps = Promise.all(Array.from({ length: 14 }, () => web.database.query('select pg_sleep(1)')))
  let busy: Sample[] = []
  await until(async () => {
    busy = (await scrape(webMetrics)).samples
    return (find(busy, 'pir_db_pool_waiting')?.value ?? 0) >= 4
  }, { what: 'four statements past the pool\'s ten' })
  t.equal(find(busy, 'pir_db_pool_connections_in_use')?.value, 10, 'every connection in use meanwhile')
  await sleeps
  t.equal(find((await scrape(webMetrics)).samples, 'pir_db_pool_waiting')?.value, 0, 'and none once they are answered')
})

t.test('the reconcile of ended sessions: runs, failures and whether the set is in sync', async (t) => {
  const { samples } = await scrape(webMetrics)
  t.ok(find(samples, 'pir_session_reconcile_runs_total')!.value >= 1, 'the first read at least')
  t.equal(find(samples, 'pir_session_reconcile_failures_total')?.value, 0)
  t.equal(find(samples, 'pir_session_reconcile_in_sync')?.value, 1)
})

t.test('SSE streams, queue depth and job durations across a web and a worker instance', async (t) => {
  const id = await createReport(web, user.auth)
  // a draft's stream stays open until the report is done
  const stream = await rawStream(`${base}/api/v1/sse/${id}`, user.auth)
  t.equal(stream.status, 200)
  t.match(stream.headers['x-request-id'], UUID, 'the stream carries its request id too')
  t.equal(find((await scrape(webMetrics)).samples, 'pir_sse_open_streams')?.value, 1, 'one open stream')
  t.equal(find((await scrape(webMetrics)).samples, 'pir_sse_streamed_reports')?.value, 1)

  const gen = await web.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: user.auth })
  t.equal(gen.statusCode, 202, gen.body)
  const queued = (await scrape(webMetrics)).samples
  t.equal(find(queued, 'pir_queue_jobs', { queue: 'report-generate', state: 'waiting' })?.value, 1, 'the job waits: no worker yet')
  t.equal(find(queued, 'pir_queue_jobs', { queue: 'report-generate', state: 'active' })?.value, 0)
  t.equal(find(queued, 'pir_queue_jobs', { queue: 'report-generate-failed', state: 'waiting' })?.value, 0)
  t.ok(find(queued, 'pir_queue_oldest_job_seconds', { queue: 'report-generate' })!.value >= 0, 'the waiting job\'s age')

  // a worker instance on the same database takes the job
  const worker = await build(t, { METRICS_PORT: '0', WORKERS: '1' }, { database: web.database })
  const workerMetrics = (await listenMetrics(worker, worker.config))!
  t.teardown(() => workerMetrics.close())
  await waitForStatus(web, user.auth, id, ['ready'])
  await stream.waitForEnd()
  const done = (await scrape(workerMetrics)).samples
  t.equal(find(done, 'pir_report_job_duration_seconds_count', { queue: 'report-generate', outcome: 'completed' })?.value, 1, 'one job, timed')
  t.ok(find(done, 'pir_report_job_duration_seconds_sum', { queue: 'report-generate', outcome: 'completed' })!.value > 0)
  t.notOk(find(done, 'pir_report_job_duration_seconds_count', { outcome: 'failed' }), 'no failed attempt')
  t.equal(find(done, 'pir_queue_jobs', { queue: 'report-generate', state: 'waiting' })?.value, 0, 'the queue is empty')
  t.equal(find(done, 'pir_queue_oldest_job_seconds', { queue: 'report-generate' })?.value, 0, 'no job waits: age 0')

  await until(async () => find((await scrape(webMetrics)).samples, 'pir_sse_open_streams')?.value === 0, { what: 'the stream to close' })
  const after = (await scrape(webMetrics)).samples
  const sse = { method: 'GET', route: '/api/v1/sse/:reportId', status_code: '200' }
  t.equal(find(after, 'pir_http_requests_total', sse)?.value, 1, 'the stream is counted')
  t.notOk(find(after, 'pir_http_request_duration_seconds_count', sse), 'its lifetime is not a latency')
  t.equal(find(done, 'pir_report_job_duration_seconds_count', { queue: 'report-generate', outcome: 'completed' })?.value, 1)
})

t.test('a worker process (npm run worker) serves its own metrics on its own METRICS_PORT', async (t) => {
  const { env } = await childDatabase(t, { migrated: true })
  const worker = await startWorker(t, { ...env, WORKERS: '1', METRICS_PORT: '0' })
  const port = Number(/"port":(\d+),"msg":"metrics listening"/.exec(worker.output())?.[1])
  t.ok(port > 0, 'its metrics listener is up before it says it started')
  const { samples } = await scrape({ port } as Parameters<typeof scrape>[0])
  t.ok(find(samples, 'pir_queue_jobs', { queue: 'report-generate', state: 'waiting' }), 'the queue it works')
  t.ok(find(samples, 'pir_webhook_deliveries', { state: 'pending' }), 'the backlogs it works off')
  t.equal(find(samples, 'pir_db_up')?.value, 1, 'its own database connection')
  t.notOk(find(samples, 'pir_http_requests_total'), 'no requests: it serves none')
  t.notOk(find(samples, 'pir_sse_open_streams'), 'no streams: it holds none (no series rather than a web instance\'s zero)')
  t.notOk(find(samples, 'pir_session_reconcile_in_sync'), 'no reconcile: it checks no token')
})

t.test('METRICS_PORT unset: no metrics, no listener', async (t) => {
  const plain = await build(t, {}, { database: web.database })
  t.equal(plain.metrics, null)
  t.equal(await listenMetrics(plain, plain.config), null)
})

t.test('request ids: one per request, answered as X-Request-ID and on every log line of the request', async (t) => {
  const a = await web.inject({ url: '/api/v1/health' })
  const b = await web.inject({ url: '/api/v1/health' })
  t.match(a.headers['x-request-id'], UUID)
  t.match(b.headers['x-request-id'], UUID)
  t.not(a.headers['x-request-id'], b.headers['x-request-id'], 'a fresh id each time')

  for (const [what, res] of [
    ['404', await web.inject({ url: '/api/v1/nothing-here' })],
    ['400', await web.inject({ method: 'POST', url: '/api/v1/report', headers: user.auth, payload: { profiles: 'nope' } })],
    ['401', await web.inject({ url: '/api/v1/report' })]
  ] as const) t.match(res.headers['x-request-id'], UUID, `a ${what} carries one too`)

  const kept = await web.inject({ url: '/api/v1/health', headers: { 'x-request-id': 'lb-7f3a.9_Z' } })
  t.equal(kept.headers['x-request-id'], 'lb-7f3a.9_Z', 'a proxy\'s safe id is kept')
  for (const bad of ['', 'a b', 'x'.repeat(65), 'quote"d', 'semi;colon', 'ünïcode', '{"json":1}']) {
    const res = await web.inject({ url: '/api/v1/health', headers: { 'x-request-id': bad } })
    t.match(res.headers['x-request-id'], UUID, `${JSON.stringify(bad.slice(0, 12))} is replaced`)
  }

  const capture = logCapture(web)!
  const lines = capture.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.reqId === 'lb-7f3a.9_Z')
  t.same(lines.map((l) => l.msg), ['incoming request', 'request completed'], 'the request\'s lines carry its id')
  t.ok(lines.every((l) => typeof l.time === 'number' && typeof l.level === 'number'), 'structured: JSON with time and level')
})
