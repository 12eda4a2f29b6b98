// The SSE hub's lifecycle: one subscription to report_events for the whole process, one heartbeat
// timer for every open stream, and every stream ended first thing on close (clients resume on
// another instance with Last-Event-ID), so that no stream holds the server open.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { REPORT_EVENTS_CHANNEL } from '../services/report-events.ts'
import { createSseHub, eventStore, type SseHub } from '../services/sse-hub.ts'

declare module 'fastify' {
  interface FastifyInstance { sseHub: SseHub }
}

export interface SsePluginOptions {
  /** seconds between `: ping` comments (SSE_HEARTBEAT_S) */
  heartbeatS: number
}

async function ssePlugin (app: FastifyInstance, opts: SsePluginOptions) {
  const hub = createSseHub({ store: eventStore(app.database.db), log: app.log })
  app.decorate('sseHub', hub)
  await app.events.on(REPORT_EVENTS_CHANNEL, hub.notify, hub.relisten)

  const heartbeat = setInterval(() => hub.ping(), opts.heartbeatS * 1000)
  heartbeat.unref()
  app.addHook('preClose', async () => {
    clearInterval(heartbeat)
    hub.closeAll()
  })
}

export default fp(ssePlugin, { name: 'sse', dependencies: ['db', 'events'] })
