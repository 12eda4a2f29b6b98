// The probes: /health/live (the process answers) and /health/ready (the database answers, every
// migration this code ships is applied, not shutting down), next to the unchanged /health; and what
// the metrics say when the database is gone.
import t from '../tap.ts'
import { build, logCapture } from '../helper.ts'
import { listenMetrics } from '../../src/startup.ts'
import { find, scrape } from './prometheus.ts'

const app = await build(t)
const ready = () => app.inject({ url: '/api/v1/health/ready' })
const READY = { status: 'ok', db: 'ok', migrations: 'applied', shuttingDown: false }

t.test('a healthy app: live, ready and /health all 200', async (t) => {
  const live = await app.inject({ url: '/api/v1/health/live' })
  t.equal(live.statusCode, 200)
  t.same(live.json(), { status: 'ok' })
  const res = await ready()
  t.equal(res.statusCode, 200)
  t.same(res.json(), READY)
  t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/)
  const health = await app.inject({ url: '/api/v1/health' })
  t.equal(health.statusCode, 200)
  t.same(health.json(), { status: 'ok', db: 'ok' })
})

t.test('a migration missing: not ready (503), still live', async (t) => {
  const [newest] = await app.database.query<{ id: number, hash: string, created_at: string }>(
    'select id, hash, created_at from drizzle.__drizzle_migrations order by created_at desc limit 1')
  await app.database.query('delete from drizzle.__drizzle_migrations where id = $1', [newest.id])
  t.teardown(async () => {
    await app.database.query('insert into drizzle.__drizzle_migrations (id, hash, created_at) values ($1, $2, $3)', [newest.id, newest.hash, newest.created_at])
  })
  const res = await ready()
  t.equal(res.statusCode, 503)
  t.same(res.json(), { status: 'unavailable', db: 'ok', migrations: 'pending', shuttingDown: false })
  t.equal((await app.inject({ url: '/api/v1/health/live' })).statusCode, 200)
})

t.test('no migration table at all: not ready, the database answered', async (t) => {
  await app.database.query('alter table drizzle.__drizzle_migrations rename to drizzle_migrations_aside')
  t.teardown(async () => { await app.database.query('alter table drizzle.drizzle_migrations_aside rename to __drizzle_migrations') })
  const res = await ready()
  t.equal(res.statusCode, 503)
  t.same(res.json(), { status: 'unavailable', db: 'ok', migrations: 'pending', shuttingDown: false })
})

t.test('migrations back: ready again', async (t) => {
  const res = await ready()
  t.equal(res.statusCode, 200)
  t.same(res.json(), READY)
})

t.test('the database closed: ready and /health 503, live 200; the metrics still answer', async (t) => {
  const lone = await build(t, { METRICS_PORT: '0' })
  const metrics = (await listenMetrics(lone, lone.config))!
  t.teardown(() => metrics.close())
  t.equal((await lone.inject({ url: '/api/v1/health/ready' })).statusCode, 200)
  const up = (await scrape(metrics)).samples
  t.equal(find(up, 'pir_db_up')?.value, 1)
  t.ok(find(up, 'pir_queue_jobs', { queue: 'report-generate', state: 'waiting' }))
  await lone.database.close()
  const res = await lone.inject({ url: '/api/v1/health/ready' })
  t.equal(res.statusCode, 503)
  t.same(res.json(), { status: 'unavailable', db: 'down', migrations: 'unknown', shuttingDown: false })
  const health = await lone.inject({ url: '/api/v1/health' })
  t.equal(health.statusCode, 503)
  t.same(health.json(), { status: 'unavailable', db: 'down' })
  const live = await lone.inject({ url: '/api/v1/health/live' })
  t.equal(live.statusCode, 200, 'the process is up: no reason to restart it')
  t.same(live.json(), { status: 'ok' })

  const { samples } = await scrape(metrics)
  t.equal(find(samples, 'pir_db_up')?.value, 0, 'pir_db_up 0')
  t.ok(Number.isNaN(find(samples, 'pir_db_ping_seconds')!.value), 'no ping time (NaN)')
  t.notOk(find(samples, 'pir_queue_jobs'), 'no stale queue depth')
  t.ok(find(samples, 'process_cpu_user_seconds_total'), 'the rest is there')
  t.equal(find(samples, 'pir_http_requests_total', { route: '/api/v1/health/ready', status_code: '503' })?.value, 1)

  // shutting down: the flag /health/ready reads (set by the first preClose hook of all)
  t.equal(lone.shuttingDown(), false)
  await lone.close()
  t.equal(lone.shuttingDown(), true, 'closing sets the shutdown flag')
})

t.test('draining: readiness 503 while every other request is still served, each answer ending its connection', async (t) => {
  const draining = await build(t)
  const before = await draining.inject({ url: '/api/v1/health/live' })
  t.not(before.headers.connection, 'close', 'keep-alive as usual before the drain')
  draining.drain()
  const res = await draining.inject({ url: '/api/v1/health/ready' })
  t.equal(res.statusCode, 503, 'not ready: a balancer polling it stops sending here')
  t.same(res.json(), { ...READY, status: 'unavailable', shuttingDown: true })
  const live = await draining.inject({ url: '/api/v1/health/live' })
  t.equal(live.statusCode, 200, 'still live: nothing to restart')
  const health = await draining.inject({ url: '/api/v1/health' })
  t.equal(health.statusCode, 200, 'other routes are still served')
  t.equal(health.headers.connection, 'close', '… and say Connection: close, so no idle keep-alive connection is left when the listener closes')
})

t.test('probes are quiet: no request lines at info level, so they do not drown the log', async (t) => {
  const before = await app.inject({ url: '/api/v1/health/live', headers: { 'x-request-id': 'probe-live-1' } })
  t.equal(before.statusCode, 200)
  await app.inject({ url: '/api/v1/health/ready', headers: { 'x-request-id': 'probe-ready-1' } })
  await app.inject({ url: '/api/v1/health', headers: { 'x-request-id': 'plain-health-1' } })
  const lines = logCapture(app)!.lines.join('\n')
  t.notMatch(lines, /probe-live-1|probe-ready-1/, 'no line for the probes')
  t.match(lines, /plain-health-1/, '/health logs as before')
})
