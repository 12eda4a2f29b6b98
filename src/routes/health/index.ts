// GET /health: is the process up and does the database answer?
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  db: Type.Union([Type.Literal('ok'), Type.Literal('down')])
})

const DB_TIMEOUT_MS = 2000

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: { tags: ['health'], response: { 200: HealthSchema, 503: HealthSchema } },
    config: { rateLimit: false }
  }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined
    const ok = await Promise.race([
      app.database.query('select 1').then(() => true, () => false),
      new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), DB_TIMEOUT_MS) })
    ])
    clearTimeout(timer)
    if (ok) return { status: 'ok' as const, db: 'ok' as const }
    return reply.code(503).send({ status: 'unavailable', db: 'down' })
  })
}

export default healthRoutes
