// app.sessions: the session service (src/services/sessions/store.ts) and the upkeep of its set of ended
// sessions. Every instance learns of ended sessions through NOTIFY; on (re)connect, and every
// SESSION_RECONCILE_S in case a NOTIFY was lost without the connection dropping, it reads what was
// committed since its last read (src/services/sessions/ended.ts). While those reads fail, Bearer
// requests are checked against the database (src/plugins/jwt.ts). Once a minute it forgets the ended
// sessions no JWT can outlive any more.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createSessionService, SESSION_ENDED_CHANNEL, type SessionService } from '../services/sessions/store.ts'

declare module 'fastify' {
  interface FastifyInstance { sessions: SessionService }
}

export interface SessionsPluginOptions {
  /** SESSION_IDLE_TTL, SESSION_ABSOLUTE_TTL, JWT_TTL (seconds) */
  idleSeconds: number
  absoluteSeconds: number
  jwtTtlSeconds: number
  /** SESSION_RECONCILE_S: how often the ended set is read again from session_revocations */
  reconcileS: number
  now?: () => number
}

const PRUNE_MS = 60_000

async function sessionsPlugin (app: FastifyInstance, opts: SessionsPluginOptions) {
  const sessions = createSessionService({
    database: app.database,
    idleSeconds: opts.idleSeconds,
    absoluteSeconds: opts.absoluteSeconds,
    jwtTtlSeconds: opts.jwtTtlSeconds,
    reconcileS: opts.reconcileS,
    now: opts.now
  })
  app.decorate('sessions', sessions)

  await sessions.loadEnded()
  await app.events.on(SESSION_ENDED_CHANNEL, (publicId) => sessions.onEndedNotice(publicId), () => {
    sessions.reconcile().catch((err) => app.log.warn({ err }, 'reading ended sessions after a LISTEN reconnect failed'))
  })
  let failing = false
  // a read that has not answered yet is not joined by another: the next tick starts one
  let reading = false
  const reconciler = setInterval(() => {
    if (reading) return
    reading = true
    sessions.reconcile().then(() => {
      if (failing) app.log.info('reading ended sessions works again')
      failing = false
    }, (err) => {
      // once per outage: the next successful read reads everything committed since the last one
      if (!failing) {
        app.log.warn({ err }, 'reading ended sessions failed; retrying every SESSION_RECONCILE_S, and Bearer requests are checked against the database after three failed intervals')
      }
      failing = true
    }).finally(() => { reading = false })
  }, opts.reconcileS * 1000)
  reconciler.unref()
  const pruner = setInterval(() => {
    sessions.prune()
    sessions.pruneRevocations().catch(() => {})
  }, PRUNE_MS)
  pruner.unref()
  app.addHook('onClose', async () => {
    clearInterval(reconciler)
    clearInterval(pruner)
    sessions.stopEnded()
  })
}

export default fp(sessionsPlugin, { name: 'sessions', dependencies: ['db', 'events'] })
