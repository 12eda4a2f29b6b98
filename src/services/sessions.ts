// Server-side sessions: the @fastify/session store on the sessions table, and the in-memory set of
// ended sessions that every Bearer request is checked against without a database round trip
// (DESIGN 8.3). However a session ends (here, in another instance, in psql, by its user's deletion),
// the sessions table's trigger records it in session_revocations and NOTIFYs every instance in the
// same transaction (drizzle/0005), which adds it to its set within milliseconds; every
// SESSION_RECONCILE_S each instance also reads what was recorded since its last look, so a NOTIFY
// that never arrives (a LISTEN connection that dropped it) costs at most that long.
//
// The store keeps the rows it reads and writes in memory (src/services/view-cache.ts), so that a
// refresh costs no database round trip: a kept row is used only while it is unexpired and its session
// is not in the ended set; otherwise the row is read again. Rolling expiry writes the row again only
// once the new expiry is ROLL_SLACK_MS past the stored one, and refresh re-sends the cookie only then
// (rollDue): both expiries trail the last refresh by at most that much, instead of a write and a
// Set-Cookie per refresh.
//
// Refresh (and the SSE stream's cookie) read a session here directly (live), and refresh rolls it
// (roll), not through @fastify/session, whose per-request session object cost more than the rest of
// a refresh together (README, Benchmarks): the same rows, the same view, the same writes; only the
// object is not made.
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { sessions } from '../db/schema.ts'
import { createViewCache } from './view-cache.ts'

export const SESSION_ENDED_CHANNEL = 'session_ended'
const ROLL_SLACK_MS = 60_000
/**
 * How far back each reconcile reads before its previous one: a revocation is stamped when its
 * statement runs but seen only once its transaction commits, and an expiry is stamped by an
 * instance's clock. Both may trail by this much and still be found.
 */
const RECONCILE_OVERLAP_MS = 60_000

export interface SessionData {
  userId?: string
  publicId?: string
  cookie?: Record<string, unknown>
}

type Callback<T = void> = (err?: Error | null, value?: T) => void

/** a live row of the sessions table, as the store keeps it */
interface Row { data: SessionData, userId: string | null, publicId: string, expiresAt: number }

/** a signed-in session, as refresh reads it */
export interface LiveSession { sid: string, userId: string, publicId: string }

/** what a rolled session's cookie is sent with: its new expiry, or none for a browser-session cookie */
export interface RolledCookie { expires: Date | null }

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

  // told of each session once, when this instance learns it ended (its open streams close)
  const endedListeners = new Set<(publicId: string) => void>()
  // where the last reconcile stopped: the database's clock for revocations, ours for expiries
  let checked: { revokedAt: Date, expiresAt: number } | undefined

  function markEnded (publicId: string) {
    const known = ended.has(publicId)
    ended.set(publicId, now() + deps.jwtTtlSeconds * 1000)
    if (!known) for (const fn of endedListeners) fn(publicId)
  }

  // The trigger announces the end to every instance once the transaction commits; this instance
  // does not wait for its own NOTIFY.
  function announce (publicIds: string[]) {
    for (const id of publicIds) markEnded(id)
  }

  /** every session recorded as ended after revokedSince, or expired in (expiredSince, now] */
  async function readEnded (revokedSince: Date, expiredSince: number, endedSince?: Date): Promise<void> {
    const until = now()
    const [row] = await database.query<{ at: Date | string, ids: string[] | null }>(
      `select clock_timestamp() as at, array(
         select public_id::text from session_revocations where revoked_at > $1
         union select public_id::text from sessions where expires_at > $2 and expires_at <= $3
         union select public_id::text from sessions where $4::timestamptz is not null and ended_at > $4
       ) as ids`,
      [revokedSince.toISOString(), new Date(expiredSince).toISOString(), new Date(until).toISOString(), endedSince?.toISOString() ?? null])
    for (const id of row.ids ?? []) markEnded(id)
    checked = { revokedAt: new Date(row.at), expiresAt: until }
  }

  async function loadRow (sid: string): Promise<Row | null> {
    const [row] = await db.select({ data: sessions.data, userId: sessions.userId, publicId: sessions.publicId, expiresAt: sessions.expiresAt })
      .from(sessions)
      .where(and(eq(sessions.id, sid), isNull(sessions.endedAt), gt(sessions.expiresAt, new Date(now()))))
    return row ? { data: row.data as SessionData, userId: row.userId, publicId: row.publicId, expiresAt: row.expiresAt.getTime() } : null
  }
  const rows = createViewCache({ load: loadRow, keep: (r) => r !== null, maxEntries: 100_000, ttlMs: 60_000 })
  const live = (r: Row | null) => r !== null && r.expiresAt > now() && !ended.has(r.publicId)
  /** a row stored with this expiry is due a write: its kept expiry is ROLL_SLACK_MS or more behind */
  const rollsOn = (kept: Row, expiresAt: number) => expiresAt - kept.expiresAt >= ROLL_SLACK_MS

  // built into SQL once (a sign-in writes one row): Drizzle's query building is not free
  const upsert = db.insert(sessions)
    .values({ id: sql.placeholder('id'), publicId: sql.placeholder('publicId'), userId: sql.placeholder('userId'), data: sql.placeholder('data'), expiresAt: sql.placeholder('expiresAt') })
    .onConflictDoUpdate({ target: sessions.id, set: { data: sql`excluded.data`, expiresAt: sql`excluded.expires_at` }, where: isNull(sessions.endedAt) })
    .returning({ id: sessions.id })
    .prepare('session_write')

  /** store a signed-in session's row (insert, or update unless it has ended meanwhile); whether it was written */
  async function write (sid: string, row: Row & { userId: string }): Promise<boolean> {
    const { data, userId, publicId, expiresAt } = row
    const written = await upsert.execute({ id: sid, publicId, userId, data, expiresAt: new Date(expiresAt) })
    if (written.length) rows.set(sid, row)
    else rows.invalidate(sid)
    return written.length > 0
  }

  /** the live row of a session id: the kept one, else (none kept, or it looks expired or ended) the database's */
  async function liveRow (sid: string): Promise<Row | null> {
    const kept = await rows.get(sid)
    if (kept === null || live(kept)) return kept
    // kept, but expired by its kept expiry (another instance may have rolled it on) or ended
    rows.invalidate(sid)
    const fresh = await rows.get(sid)
    return live(fresh) ? fresh : null
  }

  const asSession = (sid: string, row: Row | null): LiveSession | null =>
    row?.userId ? { sid, userId: row.userId, publicId: row.publicId } : null

  const store = {
    get (sid: string, cb: Callback<SessionData | null>) {
      liveRow(sid)
        .then((row) => cb(null, row ? { ...restored(row.data), userId: row.userId ?? undefined, publicId: row.publicId } : null), cb)
    },
    set (sid: string, session: SessionData & { cookie?: { toJSON?: () => Record<string, unknown> } }, cb: Callback) {
      // Anonymous sessions are not worth a row: only signed-in sessions are stored.
      if (!session.userId || !session.publicId) { cb(); return }
      const data = { cookie: typeof session.cookie?.toJSON === 'function' ? session.cookie.toJSON() : session.cookie }
      const expiresAt = now() + deps.ttlSeconds * 1000
      const { userId, publicId } = session
      const kept = rows.peek(sid)
      if (kept && live(kept) && kept.userId === userId && kept.publicId === publicId &&
          kept.data.cookie?.originalMaxAge === data.cookie?.originalMaxAge && !rollsOn(kept, expiresAt)) {
        cb()
        return
      }
      write(sid, { data, userId, publicId, expiresAt }).then(() => cb(), cb)
    },
    destroy (sid: string, cb: Callback) {
      rows.invalidate(sid)
      db.update(sessions).set({ endedAt: new Date(now()) })
        .where(and(eq(sessions.id, sid), isNull(sessions.endedAt)))
        .returning({ publicId: sessions.publicId })
        .then((rows) => { announce(rows.map((r) => r.publicId)); cb() }, cb)
    }
  }

  return {
    store,
    isEnded: (publicId: string) => ended.has(publicId),
    /**
     * whether a refresh should roll this session's expiry: when the stored expiry would move at least
     * ROLL_SLACK_MS (or the row is not kept here). Otherwise neither the row nor the cookie is sent
     * again: the cookie's Expires then trails the rolling expiry by at most a minute, as the row's does.
     */
    rollDue (sid: string): boolean {
      const kept = rows.peek(sid)
      return !kept || rollsOn(kept, now() + deps.ttlSeconds * 1000)
    },

    /**
     * live() answered from memory, without a wait: the signed-in session of a kept row that is still
     * live, or null for a kept live row of no user; undefined when no live row is kept (none, or
     * expired by its kept expiry, or ended), for live() to read the database.
     */
    liveKept (sid: string): LiveSession | null | undefined {
      const kept = rows.peek(sid)
      return kept !== undefined && live(kept) ? asSession(sid, kept) : undefined
    },

    /** the signed-in session of a (verified) session id, if it is live: unexpired, not ended */
    async live (sid: string): Promise<LiveSession | null> {
      return asSession(sid, await liveRow(sid))
    },

    /**
     * Roll a session on, as @fastify/session's touch() and save() would: the row's expiry to
     * SESSION_TTL from now, and a remembered cookie's expiry to its max age from now (a
     * browser-session cookie keeps none). Null when the session is no longer live, or ended meanwhile.
     */
    async roll (s: LiveSession): Promise<RolledCookie | null> {
      const row = await liveRow(s.sid)
      if (!row?.userId) return null
      const cookie = row.data.cookie ?? {}
      const maxAge = typeof cookie.originalMaxAge === 'number' && cookie.originalMaxAge > 0 ? cookie.originalMaxAge : null
      const expires = maxAge === null ? null : new Date(now() + maxAge)
      const data = { ...row.data, cookie: { ...cookie, expires } }
      const written = await write(s.sid, { data, userId: row.userId, publicId: row.publicId, expiresAt: now() + deps.ttlSeconds * 1000 })
      return written ? { expires } : null
    },
    /** a NOTIFY from another instance (or this one) */
    onEndedNotice: (publicId: string) => { markEnded(publicId) },
    /** fn(publicId) once for each session this instance learns has ended, however it learns it */
    onEnded: (fn: (publicId: string) => void) => { endedListeners.add(fn) },

    async endByPublicId (publicId: string): Promise<void> {
      const rows = await db.update(sessions).set({ endedAt: new Date(now()) })
        .where(and(eq(sessions.publicId, publicId), isNull(sessions.endedAt)))
        .returning({ publicId: sessions.publicId })
      announce(rows.length ? rows.map((r) => r.publicId) : [publicId])
    },

    async endAllOfUser (userId: string): Promise<void> {
      const rows = await db.update(sessions).set({ endedAt: new Date(now()) })
        .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt)))
        .returning({ publicId: sessions.publicId })
      announce(rows.map((r) => r.publicId))
    },

    /** a live session of this public id: its user and expiry */
    async findLive (publicId: string) {
      const [row] = await db.select({ id: sessions.id, userId: sessions.userId }).from(sessions)
        .where(and(eq(sessions.publicId, publicId), isNull(sessions.endedAt), gt(sessions.expiresAt, new Date(now()))))
      return row
    },

    /**
     * (re)load every session ended or expired recently enough for one of its JWTs to be unexpired:
     * the revocations recorded within JWT_TTL (by the database's clock), and the sessions that ended
     * or expired within it (rows ended before the trigger recorded revocations are found there).
     */
    async loadEnded (): Promise<void> {
      const [{ at }] = await database.query<{ at: Date | string }>('select clock_timestamp() as at')
      const ttlMs = deps.jwtTtlSeconds * 1000
      await readEnded(new Date(new Date(at).getTime() - ttlMs), now() - ttlMs, new Date(now() - ttlMs))
    },

    /** read what ended since the last look (loadEnded's, or this one's), with an overlap (RECONCILE_OVERLAP_MS) */
    async reconcile (): Promise<void> {
      if (!checked) return await this.loadEnded()
      await readEnded(new Date(checked.revokedAt.getTime() - RECONCILE_OVERLAP_MS), checked.expiresAt - RECONCILE_OVERLAP_MS)
    },

    /** forget revocations no JWT can outlive any more; any instance may run it, any number of times */
    async pruneRevocations (): Promise<void> {
      await database.query('delete from session_revocations where revoked_at < clock_timestamp() - make_interval(secs => $1)', [deps.jwtTtlSeconds])
    },

    prune (): void {
      const t = now()
      for (const [id, until] of ended) if (until <= t) ended.delete(id)
    }
  }
}

export type SessionService = ReturnType<typeof createSessionService>
