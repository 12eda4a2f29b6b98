// Server-side sessions: the @fastify/session store on the sessions table, and the in-memory set of
// ended sessions that every Bearer request is checked against without a database round trip
// (DESIGN 8.3). Ending a session NOTIFYs every instance, which adds it to its set within milliseconds.
import { and, eq, gt, isNull, lte, or } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { sessions } from '../db/schema.ts'

export const SESSION_ENDED_CHANNEL = 'session_ended'

export interface SessionData {
  userId?: string
  publicId?: string
  cookie?: Record<string, unknown>
}

type Callback<T = void> = (err?: Error | null, value?: T) => void

// A browser-session cookie (sign-in with remember:false) is stored with originalMaxAge null. Say
// maxAge null as well: otherwise @fastify/session falls back to the configured maxAge when it
// restores the session, and the next save (a refresh) turns the cookie into a 30-day one.
function restored (data: SessionData): SessionData {
  const cookie = data.cookie
  return cookie && cookie.originalMaxAge == null ? { ...data, cookie: { ...cookie, maxAge: null } } : data
}

export function createSessionService (deps: { database: Database, ttlSeconds: number, jwtTtlSeconds: number, now?: () => number }) {
  const { database } = deps
  const db = database.db
  const now = deps.now ?? Date.now
  // publicId -> when it can be forgotten (no JWT of it can still be unexpired by then)
  const ended = new Map<string, number>()

  function markEnded (publicId: string) {
    ended.set(publicId, now() + deps.jwtTtlSeconds * 1000)
  }

  async function announce (publicIds: string[]) {
    for (const id of publicIds) markEnded(id)
    for (const id of publicIds) await database.notify(SESSION_ENDED_CHANNEL, id)
  }

  const store = {
    get (sid: string, cb: Callback<SessionData | null>) {
      db.select({ data: sessions.data, userId: sessions.userId, publicId: sessions.publicId })
        .from(sessions)
        .where(and(eq(sessions.id, sid), isNull(sessions.endedAt), gt(sessions.expiresAt, new Date(now()))))
        .then(([row]) => cb(null, row ? { ...restored(row.data as SessionData), userId: row.userId ?? undefined, publicId: row.publicId } : null), cb)
    },
    set (sid: string, session: SessionData & { cookie?: { toJSON?: () => Record<string, unknown> } }, cb: Callback) {
      // Anonymous sessions are not worth a row: only signed-in sessions are stored.
      if (!session.userId || !session.publicId) { cb(); return }
      const data = { cookie: typeof session.cookie?.toJSON === 'function' ? session.cookie.toJSON() : session.cookie }
      const expiresAt = new Date(now() + deps.ttlSeconds * 1000)
      db.insert(sessions)
        .values({ id: sid, publicId: session.publicId, userId: session.userId, data, expiresAt })
        .onConflictDoUpdate({ target: sessions.id, set: { data, expiresAt }, where: isNull(sessions.endedAt) })
        .then(() => cb(), cb)
    },
    destroy (sid: string, cb: Callback) {
      db.update(sessions).set({ endedAt: new Date(now()) })
        .where(and(eq(sessions.id, sid), isNull(sessions.endedAt)))
        .returning({ publicId: sessions.publicId })
        .then((rows) => announce(rows.map((r) => r.publicId)))
        .then(() => cb(), cb)
    }
  }

  return {
    store,
    isEnded: (publicId: string) => ended.has(publicId),
    /** a NOTIFY from another instance (or this one) */
    onEndedNotice: (publicId: string) => { markEnded(publicId) },

    async endByPublicId (publicId: string): Promise<void> {
      const rows = await db.update(sessions).set({ endedAt: new Date(now()) })
        .where(and(eq(sessions.publicId, publicId), isNull(sessions.endedAt)))
        .returning({ publicId: sessions.publicId })
      await announce(rows.length ? rows.map((r) => r.publicId) : [publicId])
    },

    async endAllOfUser (userId: string): Promise<void> {
      const rows = await db.update(sessions).set({ endedAt: new Date(now()) })
        .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt)))
        .returning({ publicId: sessions.publicId })
      await announce(rows.map((r) => r.publicId))
    },

    /** a live session of this public id: its user and expiry */
    async findLive (publicId: string) {
      const [row] = await db.select({ id: sessions.id, userId: sessions.userId }).from(sessions)
        .where(and(eq(sessions.publicId, publicId), isNull(sessions.endedAt), gt(sessions.expiresAt, new Date(now()))))
      return row
    },

    /** (re)load every session ended or expired recently enough for one of its JWTs to be unexpired */
    async loadEnded (): Promise<void> {
      const since = new Date(now() - deps.jwtTtlSeconds * 1000)
      const rows = await db.select({ publicId: sessions.publicId }).from(sessions)
        .where(or(gt(sessions.endedAt, since), and(gt(sessions.expiresAt, since), lte(sessions.expiresAt, new Date(now())))))
      for (const r of rows) markEnded(r.publicId)
    },

    prune (): void {
      const t = now()
      for (const [id, until] of ended) if (until <= t) ended.delete(id)
    }
  }
}

export type SessionService = ReturnType<typeof createSessionService>
