// The SSE hubs' lifecycle: one handler of report_events and one of alerts for the whole process (the
// report hub and the users' alert hub, src/services/streams/alert-hub.ts), which with a broker
// subscribes to a report's or a user's channel while a stream of it is open here, one heartbeat
// timer for every open stream, and every stream ended first thing on close (clients resume on
// another instance with Last-Event-ID), so that no stream holds the server open. Streams also end
// (`event: end`) when their session ends, their report is deleted or their Bearer token expires. A
// deletion is heard through NOTIFY, and every SESSION_RECONCILE_S read from report_deletions in case
// the NOTIFY was lost (src/services/streams/deleted-reports.ts).
import fp from 'fastify-plugin'
import { inArray } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { reports } from '../db/schema/index.ts'
import { REPORT_EVENTS_CHANNEL } from '../services/reports/events.ts'
import { createDeletedReports } from '../services/streams/deleted-reports.ts'
import { createSseHub, eventStore, type SseHub } from '../services/streams/hub.ts'
import { alertStore, createAlertHub, type AlertHub } from '../services/streams/alert-hub.ts'
import { ALERTS_CHANNEL } from '../services/alerts/record.ts'

declare module 'fastify' {
  interface FastifyInstance { sseHub: SseHub, alertHub: AlertHub }
}

/** drizzle/0012's trigger: a report row was deleted (by its owner, or with its owner's account) */
export const REPORT_DELETED_CHANNEL = 'report_deleted'

export interface SsePluginOptions {
  /** seconds between `: ping` comments (SSE_HEARTBEAT_S) */
  heartbeatS: number
  /** open streams one user may hold on this instance (SSE_MAX_STREAMS_PER_USER) */
  maxStreamsPerUser: number
  /** seconds between reads of the report deletions committed since the last one (SESSION_RECONCILE_S) */
  reconcileS: number
  /** seconds a deletion is kept in report_deletions (JWT_TTL, as a revocation is) */
  deletionRetentionS: number
}

const PRUNE_MS = 60_000

async function ssePlugin (app: FastifyInstance, opts: SsePluginOptions) {
  // one SSE_MAX_STREAMS_PER_USER for a user's report and alert streams together
  const hub: SseHub = createSseHub({
    store: eventStore(app.database.db),
    log: app.log,
    maxStreamsPerUser: opts.maxStreamsPerUser,
    otherStreams: (userId) => alerts.streamsOf(userId),
    sessionEnded: app.sessions.isEnded,
    watch: (reportId) => app.events.subscribe(REPORT_EVENTS_CHANNEL, reportId),
    unwatch: (reportId) => app.events.unsubscribe(REPORT_EVENTS_CHANNEL, reportId)
  })
  const alerts: AlertHub = createAlertHub({
    store: alertStore(app.database.db),
    log: app.log,
    maxStreamsPerUser: opts.maxStreamsPerUser,
    otherStreams: hub.streamsOf,
    sessionEnded: app.sessions.isEnded,
    watch: (userId) => app.events.subscribe(ALERTS_CHANNEL, userId),
    unwatch: (userId) => app.events.unsubscribe(ALERTS_CHANNEL, userId)
  })
  app.decorate('sseHub', hub)
  app.decorate('alertHub', alerts)
  await app.events.on(REPORT_EVENTS_CHANNEL, hub.notify, hub.relisten)
  // a user's alerts, announced at the commit that raised them (src/services/alerts/record.ts)
  await app.events.on(ALERTS_CHANNEL, alerts.notify, alerts.relisten)
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
  // A deletion whose NOTIFY was lost without the connection dropping: read by transaction every
  // SESSION_RECONCILE_S. After reads failed, the first that works also checks the open reports, in
  // case the deletions it missed were pruned meanwhile.
  const deletions = createDeletedReports(app.database, opts.deletionRetentionS)
  await deletions.read()
  let failing = false
  let reading = false
  const reconciler = setInterval(() => {
    if (reading) return
    reading = true
    deletions.read().then(async (ids) => {
      for (const id of ids) hub.endReport(id)
      if (failing) await deletedMeanwhile()
      failing = false
    }).catch((err) => {
      if (!failing) app.log.warn({ err }, 'reading deleted reports failed; retrying every SESSION_RECONCILE_S')
      failing = true
    }).finally(() => { reading = false })
  }, opts.reconcileS * 1000)
  reconciler.unref()
  const pruner = setInterval(() => { deletions.prune().catch(() => {}) }, PRUNE_MS)
  pruner.unref()
  // Every way this instance learns a session ended (its own sign-out, a NOTIFY, a reconcile) ends
  // that session's streams here.
  app.sessions.onEnded(hub.endSession)
  app.sessions.onEnded(alerts.endSession)

  const heartbeat = setInterval(() => { hub.ping(); alerts.ping() }, opts.heartbeatS * 1000)
  heartbeat.unref()
  // a Bearer stream ends within a second of its token's expiry
  const expiry = setInterval(() => { const now = Date.now(); hub.expire(now); alerts.expire(now) }, 1000)
  expiry.unref()
  app.addHook('preClose', async () => {
    clearInterval(heartbeat)
    clearInterval(expiry)
    clearInterval(reconciler)
    clearInterval(pruner)
    hub.closeAll()
    alerts.closeAll()
  })
}

export default fp(ssePlugin, { name: 'sse', dependencies: ['db', 'events', 'sessions'] })
