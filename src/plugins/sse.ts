// The SSE hub's lifecycle: one subscription to report_events for the whole process, one heartbeat
// timer for every open stream, and every stream ended first thing on close (clients resume on
// another instance with Last-Event-ID), so that no stream holds the server open. Streams also end
// (`event: end`) when their session ends, their report is deleted or their Bearer token expires.
import fp from 'fastify-plugin'
import { inArray } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { reports } from '../db/schema.ts'
import { REPORT_EVENTS_CHANNEL } from '../services/reports/events.ts'
import { createSseHub, eventStore, type SseHub } from '../services/streams/hub.ts'

declare module 'fastify' {
  interface FastifyInstance { sseHub: SseHub }
}

/** drizzle/0005's trigger: a report row was deleted (by its owner, or with its owner's account) */
export const REPORT_DELETED_CHANNEL = 'report_deleted'

export interface SsePluginOptions {
  /** seconds between `: ping` comments (SSE_HEARTBEAT_S) */
  heartbeatS: number
  /** open streams one user may hold on this instance (SSE_MAX_STREAMS_PER_USER) */
  maxStreamsPerUser: number
}

async function ssePlugin (app: FastifyInstance, opts: SsePluginOptions) {
  const hub = createSseHub({
    store: eventStore(app.database.db),
    log: app.log,
    maxStreamsPerUser: opts.maxStreamsPerUser,
    sessionEnded: app.sessions.isEnded
  })
  app.decorate('sseHub', hub)
  await app.events.on(REPORT_EVENTS_CHANNEL, hub.notify, hub.relisten)
  // A deletion announced while the LISTEN connection was away is found on reconnect: the reports
  // with open streams here that are gone.
  const deletedMeanwhile = async () => {
    const open = hub.reportIds()
    if (open.length === 0) return
    const rows = await app.database.db.select({ id: reports.id }).from(reports).where(inArray(reports.id, open))
    const present = new Set(rows.map((r) => r.id))
    for (const id of open) if (!present.has(id)) hub.endReport(id)
  }
  await app.events.on(REPORT_DELETED_CHANNEL, hub.endReport, () => {
    deletedMeanwhile().catch((err) => app.log.warn({ err }, 'checking the reports of open streams failed'))
  })
  // Every way this instance learns a session ended (its own sign-out, a NOTIFY, a reconcile) ends
  // that session's streams here.
  app.sessions.onEnded(hub.endSession)

  const heartbeat = setInterval(() => hub.ping(), opts.heartbeatS * 1000)
  heartbeat.unref()
  // a Bearer stream ends within a second of its token's expiry
  const expiry = setInterval(() => hub.expire(Date.now()), 1000)
  expiry.unref()
  app.addHook('preClose', async () => {
    clearInterval(heartbeat)
    clearInterval(expiry)
    hub.closeAll()
  })
}

export default fp(ssePlugin, { name: 'sse', dependencies: ['db', 'events', 'sessions'] })
