// app.sessions: the session service (src/services/sessions/store.ts) and the upkeep of its set of ended
// sessions. Every instance learns of ended sessions through NOTIFY; on (re)connect it reloads what it
// may have missed, and every SESSION_RECONCILE_S it reads what was recorded since its last look, in
// case a NOTIFY was lost without the connection dropping (src/services/sessions/ended.ts). Once a
// minute it forgets the ended sessions no JWT can outlive any more.
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
    database: app.database, idleSeconds: opts.idleSeconds, absoluteSeconds: opts.absoluteSeconds, jwtTtlSeconds: opts.jwtTtlSeconds, now: opts.now
  })
  app.decorate('sessions', sessions)

  await sessions.loadEnded()
  await app.events.on(SESSION_ENDED_CHANNEL, (publicId) => sessions.onEndedNotice(publicId), () => {
    sessions.loadEnded().catch((err) => app.log.warn({ err }, 'reloading ended sessions failed'))
  })
  let failing = false
  const reconciler = setInterval(() => {
    sessions.reconcile().then(() => {
      if (failing) app.log.info('reading ended sessions works again')
      failing = false
    }, (err) => {
      // once per outage: the next successful look reads everything since the last one
      if (!failing) app.log.warn({ err }, 'reading ended sessions failed; retrying every SESSION_RECONCILE_S')
      failing = true
    })
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
  })
}

export default fp(sessionsPlugin, { name: 'sessions', dependencies: ['db', 'events'] })
