// Metrics of this app (METRICS_PORT set): every answered request counted and timed under its route
// pattern (never the raw URL, which would make a series per report id, and per scanner probe), and
// the gauges pointed at the SSE hub, the report queue, the database and the sessions' reconcile. The exposition is served by
// a listener of its own (src/startup.ts), never by the public one.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { FAILED_QUEUE, GENERATE_QUEUE } from '../jobs/queue.ts'
import type { Metrics } from '../services/operability/metrics.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** null when METRICS_PORT is unset */
    metrics: Metrics | null
  }
}

export interface MetricsPluginOptions { metrics: Metrics | null }

/** the label of a request that matched no route: one series for all of them */
export const UNMATCHED_ROUTE = 'unmatched'

async function metricsPlugin (app: FastifyInstance, opts: MetricsPluginOptions) {
  const { metrics } = opts
  app.decorate('metrics', metrics)
  if (!metrics) return

  metrics.watchDatabase(app.database)
  metrics.watchSse(app.sseHub)
  metrics.watchQueue(app.queue.boss, [GENERATE_QUEUE, FAILED_QUEUE])
  metrics.watchReconcile({ reconciles: app.sessions.reconciles, inSync: app.sessions.endedSetInSync })
  metrics.watchEvents(app.events)

  app.addHook('onResponse', async (request, reply) => {
    const type = reply.getHeader('content-type') ?? reply.raw.getHeader('content-type')
    const stream = String(type ?? '').startsWith('text/event-stream')
    metrics.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode,
      stream ? undefined : reply.elapsedTime / 1000)
  })
}

export default fp(metricsPlugin, { name: 'metrics', dependencies: ['db', 'events', 'sse', 'queue', 'sessions'] })
