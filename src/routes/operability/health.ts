// Health: GET /health (is the process up and does the database answer?), and the two probes of an
// orchestrator or load balancer: /health/live (the process answers: restart it when it does not) and
// /health/ready (send it traffic: the database answers, every migration this code ships is applied,
// and the app is not shutting down).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { migrationsApplied } from '../../db/migrate.ts'
import { isDatabaseDown } from '../../db/client.ts'

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  db: Type.Union([Type.Literal('ok'), Type.Literal('down')])
}, { title: 'Health' })

const LiveSchema = Type.Object({ status: Type.Literal('ok') }, { title: 'Liveness' })

const ReadySchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  db: Type.Union([Type.Literal('ok'), Type.Literal('down')]),
  migrations: Type.Union([Type.Literal('applied'), Type.Literal('pending'), Type.Literal('unknown')], {
    description: 'unknown: the database did not answer, or refused to say'
  }),
  shuttingDown: Type.Boolean()
}, { title: 'Readiness' })

const DB_TIMEOUT_MS = 2000

const TIMED_OUT = Symbol('timed out')

async function withTimeout<T> (work: Promise<T>): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([work, new Promise<typeof TIMED_OUT>((resolve) => { timer = setTimeout(() => resolve(TIMED_OUT), DB_TIMEOUT_MS) })])
  } finally {
    clearTimeout(timer)
  }
}

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: { operationId: 'getHealth', security: [], tags: ['health'], summary: 'Health: the process answers and its database too', response: { 200: HealthSchema, 503: HealthSchema } },
    config: { rateLimit: false }
  }, async (_request, reply) => {
    const ok = await withTimeout(app.database.query('select 1').then(() => true, () => false))
    if (ok === true) return { status: 'ok' as const, db: 'ok' as const }
    return reply.code(503).send({ status: 'unavailable', db: 'down' })
  })

  // Probes come every few seconds: their lines would drown the rest at info level.
  app.get('/health/live', {
    schema: { operationId: 'getLiveness', security: [], tags: ['health'], summary: 'Liveness: the process answers', response: { 200: LiveSchema } },
    config: { rateLimit: false },
    logLevel: 'warn'
  }, async () => ({ status: 'ok' as const }))

  app.get('/health/ready', {
    schema: { operationId: 'getReadiness', security: [], tags: ['health'], summary: 'Readiness: database up, migrations applied, not shutting down', response: { 200: ReadySchema, 503: ReadySchema } },
    config: { rateLimit: false },
    logLevel: 'warn'
  }, async (_request, reply) => {
    let db: 'ok' | 'down' = 'down'
    let migrations: 'applied' | 'pending' | 'unknown' = 'unknown'
    try {
      const applied = await withTimeout(migrationsApplied(app.database))
      if (applied !== TIMED_OUT) {
        db = 'ok'
        migrations = applied ? 'applied' : 'pending'
      }
    } catch (err) {
      if (!isDatabaseDown(err)) {
        // the database answered, with an error: no migration table yet (42P01), or no right to read it
        db = 'ok'
        migrations = (err as { code?: string }).code === '42P01' ? 'pending' : 'unknown'
      }
    }
    // From SIGTERM's drain on (src/plugins/lifecycle.ts), and at the latest once close begins, the
    // instance is leaving: a balancer must stop sending to it while it still serves what comes.
    const shuttingDown = app.shuttingDown()
    const ready = db === 'ok' && migrations === 'applied' && !shuttingDown
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', db, migrations, shuttingDown })
  })
}

export default healthRoutes
