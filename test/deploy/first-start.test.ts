// A first deploy on PostgreSQL: two web instances and a worker started at the same moment on a
// database nobody has migrated all come up (the migrations wait on one lock; the job queue's schema
// and queues, made by whichever process gets there first, are retried by the others when PostgreSQL
// answers a deadlock or a duplicate). And `npm run db:migrate` makes the queue's schema and queues
// itself, so that the processes started after it race on nothing.
import t from '../tap.ts'
import { spawnSync } from 'node:child_process'
import { onPostgres } from '../helper.ts'
import { childDatabase, childEnv, ROOT } from '../foundation/support.ts'
import { call, startServer, startWorker } from '../peers/server-process.ts'
import postgres from 'postgres'

const skip = onPostgres ? false : 'processes racing on one database need PostgreSQL (set TEST_DATABASE_URL); the embedded database has one owner'

const queues = async (url: string) => {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    return (await sql<Array<{ name: string }>>`select name from pgboss.queue order by name`).map((r) => r.name)
  } finally {
    await sql.end()
  }
}

t.test('three processes started at once on a fresh database all come up', { skip }, async (t) => {
  const db = await childDatabase(t)
  const env = { DATABASE_URL: db.url, WORKERS: '1' }
  // three at once, each loading the service and racing on the migrations and the queue: slower than one alone
  const opts = { startTimeoutMs: 180_000 }
  const started = await Promise.allSettled([startServer(t, env, opts), startServer(t, env, opts), startWorker(t, env, opts)])
  t.same(started.map((s) => s.status === 'rejected' ? String(s.reason).slice(0, 2000) : 'up'), ['up', 'up', 'up'], 'web, web and worker are up')
  for (const s of started) {
    if (s.status !== 'fulfilled' || !s.value.url) continue
    const ready = await call(s.value, 'GET', '/health/ready')
    t.equal(ready.status, 200, 'a web instance is ready')
  }
  t.same(await queues(db.url), ['report-generate', 'report-generate-failed'], 'the report queues exist once')
  for (const s of started) if (s.status === 'fulfilled') t.equal(s.value.child.exitCode, null, 'still running')
})

t.test('npm run db:migrate makes the job queue\'s schema and queues', { skip }, async (t) => {
  const db = await childDatabase(t)
  const res = spawnSync('npm', ['run', '--silent', 'db:migrate'], { cwd: ROOT, env: childEnv({ ...db.env, NODE_ENV: 'test' }), encoding: 'utf8' })
  t.equal(res.status, 0, res.stderr)
  t.match(res.stdout, /migrations applied to PostgreSQL/)
  t.same(await queues(db.url), ['report-generate', 'report-generate-failed'], 'both report queues, before any process starts')
})
