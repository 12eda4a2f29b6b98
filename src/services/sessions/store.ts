// Server-side sessions: the service over the sessions table's rows (./rows.ts), the store
// @fastify/session keeps them in (./fastify-store.ts), and the set of ended sessions every Bearer
// request is checked against (./ended.ts).
//
// Refresh (and the SSE stream's cookie) read a session here directly (live), and refresh rolls it
// (roll), not through @fastify/session, whose per-request session object costs more than the rest of
// a refresh together: the same rows, the same view, the same writes; only the object is not made.
import { and, eq, gt, isNull } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { sessions } from '../../db/schema/index.ts'
import { createEndedSessions } from './ended.ts'
import { createFastifyStore } from './fastify-store.ts'
import { createSessionProofs } from './proofs.ts'
import { createSessionRows, type Level, type Row } from './rows.ts'

export const SESSION_ENDED_CHANNEL = 'session_ended'

/** a signed-in session, as refresh reads it; aal: its level, absent for an account without a second factor */
export interface LiveSession { sid: string, userId: string, publicId: string, aal?: Level }

/** what a rolled session's cookie is sent with: its new expiry, or none for a browser-session cookie */
export interface RolledCookie { expires: Date | null }

export interface SessionServiceDeps {
  database: Database
  /** SESSION_IDLE_TTL: seconds an unused session lives */
  idleSeconds: number
  /** SESSION_ABSOLUTE_TTL: seconds a session lives at most after sign-in */
  absoluteSeconds: number
  jwtTtlSeconds: number
  /** SESSION_RECONCILE_S: how often the ended set is read again */
  reconcileS: number
  now?: () => number
}

export function createSessionService (deps: SessionServiceDeps) {
  const { database } = deps
  const db = database.db
  const now = deps.now ?? Date.now
  const ended = createEndedSessions({ database, jwtTtlSeconds: deps.jwtTtlSeconds, reconcileS: deps.reconcileS, now })
  const sessionRows = createSessionRows({ database, idleSeconds: deps.idleSeconds, absoluteSeconds: deps.absoluteSeconds, isEnded: ended.has, now })
  const { kept: rows, live, rollsOn, expiryOf, absoluteMs, write, liveRow } = sessionRows

  const asSession = (sid: string, row: Row | null): LiveSession | null =>
    row?.userId ? (row.aal === null ? { sid, userId: row.userId, publicId: row.publicId } : { sid, userId: row.userId, publicId: row.publicId, aal: row.aal }) : null

  return {
    store: createFastifyStore({ database, rows: sessionRows, markEnded: ended.mark, now }),
    isEnded: ended.has,
    /** whether isEnded can be trusted alone; while it cannot, a Bearer request asks endedInDatabase (src/plugins/jwt.ts) */
    endedSetInSync: ended.inSync,
    endedInDatabase: ended.endedInDatabase,
    /**
     * whether a refresh should roll this session on: when its last use is at least ROLL_SLACK_MS old
     * (or the row is not kept here). Otherwise neither the row nor the cookie is sent again: the
     * cookie's Expires then trails the rolling expiry by at most a minute, as the row's does.
     */
    rollDue (sid: string): boolean {
      const kept = rows.peek(sid)
      return !kept || rollsOn(kept)
    },

    /** whether a live row of this session is kept in memory: live() then reads no database */
    isKept (sid: string): boolean {
      const kept = rows.peek(sid)
      return kept !== undefined && live(kept)
    },

    /**
     * the signed-in session of a (verified) session id, if it is live: unexpired, not ended. A live
     * kept row is answered here, without liveRow's awaits: every refresh asks this, and each nested
     * async call is a promise and a turn of the microtask queue (see docs/benchmarks.md, Caches on
     * the hot paths).
     */
    async live (sid: string): Promise<LiveSession | null> {
      const kept = rows.peek(sid)
      if (kept && live(kept) && kept.aal !== 1) return asSession(sid, kept)
      // A kept level-1 row is read again: another instance may have raised the session to level 2.
      // Such a session is in its first minutes and asks little, so only it pays the query.
      if (kept?.aal === 1) rows.invalidate(sid)
      return asSession(sid, await liveRow(sid))
    },

    /**
     * Roll a session on, as @fastify/session's touch() and save() would: its last use to now, the
     * row's expiry to SESSION_IDLE_TTL from now and a remembered cookie's to its max age from now,
     * neither past SESSION_ABSOLUTE_TTL from sign-in (a browser-session cookie keeps no expiry).
     * Null when the session is no longer live, or ended meanwhile.
     */
    async roll (s: LiveSession): Promise<RolledCookie | null> {
      const row = await liveRow(s.sid)
      if (!row?.userId) return null
      const t = now()
      const cookie = row.data.cookie ?? {}
      const maxAge = typeof cookie.originalMaxAge === 'number' && cookie.originalMaxAge > 0 ? cookie.originalMaxAge : null
      const expires = maxAge === null ? null : new Date(Math.min(t + maxAge, row.createdAt + absoluteMs))
      const data = { ...row.data, cookie: { ...cookie, expires } }
      const written = await write(s.sid, {
        data, userId: row.userId, publicId: row.publicId, expiresAt: expiryOf(row.createdAt, t), createdAt: row.createdAt, lastUsedAt: t
      })
      return written ? { expires } : null
    },
    /** a NOTIFY from another instance (or this one) */
    onEndedNotice: (publicId: string) => { ended.mark([publicId]) },
    onEnded: ended.onEnded,

    async endByPublicId (publicId: string): Promise<void> {
      const rows = await db.update(sessions).set({ endedAt: new Date(now()) })
        .where(and(eq(sessions.publicId, publicId), isNull(sessions.endedAt)))
        .returning({ publicId: sessions.publicId })
      ended.mark(rows.length ? rows.map((r) => r.publicId) : [publicId])
    },

    /**
     * Set the level of the live session of this public id (null: its account has no second factor any
     * more); `proved`: the change is a proof of the owner (the second factor), so proved_at moves too.
     * The kept row is dropped: the next read of the session sees the level. Whether it is live.
     */
    async setLevel (publicId: string, aal: Level | null, proved: boolean): Promise<boolean> {
      const at = new Date(now())
      const changed = await db.update(sessions).set(proved ? { aal, provedAt: at } : { aal })
        .where(and(eq(sessions.publicId, publicId), isNull(sessions.endedAt), gt(sessions.expiresAt, at)))
        .returning({ id: sessions.id })
      for (const r of changed) rows.invalidate(r.id)
      return changed.length > 0
    },

    /** sessions ended here by other services (src/services/sessions/control.ts): marked and announced as every ending is */
    announceEnded: ended.mark,

    // when each session last proved its owner (./proofs.ts)
    ...createSessionProofs(database, now),

    /** a live session of this public id: its user and expiry */
    async findLive (publicId: string) {
      const [row] = await db.select({ id: sessions.id, userId: sessions.userId }).from(sessions)
        .where(and(eq(sessions.publicId, publicId), isNull(sessions.endedAt), gt(sessions.expiresAt, new Date(now()))))
      return row
    },

    loadEnded: ended.load,
    reconcile: ended.reconcile,
    /** reads of the ended set since start, and the failed ones */
    reconciles: ended.reconciles,
    pruneRevocations: ended.pruneRevocations,
    prune: ended.prune,
    stopEnded: ended.stop
  }
}

export type SessionService = ReturnType<typeof createSessionService>
