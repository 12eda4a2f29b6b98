// Server-side sessions: the @fastify/session store on the sessions table, and the set of ended
// sessions every Bearer request is checked against (src/services/sessions/ended.ts).
//
// The store keeps the rows it reads and writes in memory (src/services/caches/view-cache.ts), so that a
// refresh costs no database round trip: a kept row is used only while it is unexpired and its session
// is not in the ended set; otherwise the row is read again. Rolling expiry writes the row again only
// once its last use is ROLL_SLACK_MS old, and refresh re-sends the cookie only then (rollDue): both
// expiries and last_used_at trail the last refresh by at most that much, instead of a write and a
// Set-Cookie per refresh.
//
// A session's expiry is the earlier of its last use + SESSION_IDLE_TTL and its creation +
// SESSION_ABSOLUTE_TTL (docs/decisions.md, Account control): using it moves the first on, never the
// second, so no refresh keeps a session alive past its absolute lifetime.
//
// Refresh (and the SSE stream's cookie) read a session here directly (live), and refresh rolls it
// (roll), not through @fastify/session, whose per-request session object costs more than the rest of
// a refresh together: the same rows, the same view, the same writes; only the object is not made.
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { StaleCredential } from '../../errors.ts'
import { sessions } from '../../db/schema/index.ts'
import { createViewCache } from '../caches/view-cache.ts'
import { createEndedSessions } from './ended.ts'
import { createSessionProofs } from './proofs.ts'

export const SESSION_ENDED_CHANNEL = 'session_ended'
const ROLL_SLACK_MS = 60_000

export interface SessionData {
  userId?: string
  publicId?: string
  cookie?: Record<string, unknown>
  /** set at sign-in only: what the row records of how and from where the session began */
  signin?: SigninMeta
}

/**
 * how a session was signed in ('password' | 'google' | 'passkey' | 'recovery'), from where (kept
 * coarse), the users.credential_version read with the credential it proved (./credential-change.ts),
 * and aal: the level it starts at, 1 for an account with a second factor, 2 for a sign-in that proved
 * one (docs/decisions.md, Second factors)
 */
export interface SigninMeta { method: string, userAgent: string | null, ipPrefix: string | null, credentialVersion: number, aal?: Level }

/** a session's authentication level: 1 until its account's second factor is proved, then 2 */
export type Level = 1 | 2

type Callback<T = void> = (err?: Error | null, value?: T) => void

/** a live row of the sessions table, as the store keeps it (times in ms since the epoch) */
interface Row { data: SessionData, userId: string | null, publicId: string, expiresAt: number, createdAt: number, lastUsedAt: number, aal: Level | null }

/** a signed-in session, as refresh reads it; aal: its level, absent for an account without a second factor */
export interface LiveSession { sid: string, userId: string, publicId: string, aal?: Level }

const levelOf = (aal: number | null): Level | null => aal === 1 || aal === 2 ? aal : null

/** what a rolled session's cookie is sent with: its new expiry, or none for a browser-session cookie */
export interface RolledCookie { expires: Date | null }

// A browser-session cookie (sign-in with remember:false) is stored with originalMaxAge null. Say
// maxAge null as well: otherwise @fastify/session falls back to the configured maxAge when it
// restores the session, and the next save (a refresh) turns the cookie into a 30-day one.
function restored (data: SessionData): SessionData {
  const cookie = data.cookie
  return cookie && cookie.originalMaxAge == null ? { ...data, cookie: { ...cookie, maxAge: null } } : data
}

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
  const idleMs = deps.idleSeconds * 1000
  const absoluteMs = deps.absoluteSeconds * 1000
  /** the expiry of a session created at `createdAt` and used at `usedAt` */
  const expiryOf = (createdAt: number, usedAt: number) => Math.min(usedAt + idleMs, createdAt + absoluteMs)
  const ended = createEndedSessions({ database, jwtTtlSeconds: deps.jwtTtlSeconds, reconcileS: deps.reconcileS, now })

  async function loadRow (sid: string): Promise<Row | null> {
    const [row] = await db.select({
      data: sessions.data, userId: sessions.userId, publicId: sessions.publicId, expiresAt: sessions.expiresAt,
      createdAt: sessions.createdAt, lastUsedAt: sessions.lastUsedAt, aal: sessions.aal
    })
      .from(sessions)
      .where(and(eq(sessions.id, sid), isNull(sessions.endedAt), gt(sessions.expiresAt, new Date(now()))))
    if (!row) return null
    const createdAt = row.createdAt.getTime()
    return {
      data: row.data as SessionData, userId: row.userId, publicId: row.publicId, expiresAt: row.expiresAt.getTime(),
      createdAt, lastUsedAt: row.lastUsedAt?.getTime() ?? createdAt, aal: levelOf(row.aal)
    }
  }
  const rows = createViewCache({ load: loadRow, keep: (r) => r !== null, maxEntries: 100_000, ttlMs: 60_000 })
  const live = (r: Row | null) => r !== null && r.expiresAt > now() && !ended.has(r.publicId)
  /** a kept row is due a write when its last use is ROLL_SLACK_MS or more behind */
  const rollsOn = (kept: Row) => now() - kept.lastUsedAt >= ROLL_SLACK_MS

  // Built into SQL once (a sign-in writes one row): Drizzle's query building is not free. An update
  // keeps the row's creation time, and with it the cap on its expiry, whatever it is sent.
  const absoluteSql = sql.raw(String(Math.floor(deps.absoluteSeconds)))
  const upsert = db.insert(sessions)
    .values({
      id: sql.placeholder('id'),
      publicId: sql.placeholder('publicId'),
      userId: sql.placeholder('userId'),
      data: sql.placeholder('data'),
      expiresAt: sql.placeholder('expiresAt'),
      createdAt: sql.placeholder('createdAt'),
      lastUsedAt: sql.placeholder('lastUsedAt'),
      userAgent: sql.placeholder('userAgent'),
      ipPrefix: sql.placeholder('ipPrefix'),
      method: sql.placeholder('method'),
      // A new row proves its owner as it begins (a sign-in). The update below leaves proved_at alone:
      // rolling a session on is no proof (docs/decisions.md, Fresh authentication).
      provedAt: sql.placeholder('createdAt'),
      // the level a sign-in starts at; the update leaves it alone too: only the second factor moves it
      aal: sql.placeholder('aal')
    })
    .onConflictDoUpdate({
      target: sessions.id,
      set: {
        data: sql`excluded.data`,
        expiresAt: sql`least(excluded.expires_at, ${sessions.createdAt} + make_interval(secs => ${absoluteSql}))`,
        lastUsedAt: sql`excluded.last_used_at`
      },
      where: isNull(sessions.endedAt)
    })
    .returning({ createdAt: sessions.createdAt, expiresAt: sessions.expiresAt, aal: sessions.aal })
    .prepare('session_write')

  // A sign-in's new row, written only while the user's credential version is the one its sign-in
  // read with the credential and the account is not disabled: FOR SHARE waits for a credential change
  // or a staff disable holding the user's row and then sees what it wrote (./credential-change.ts says
  // why no session outlives a change; src/services/staff/disable.ts, a disable).
  const START = `insert into sessions (id, public_id, user_id, data, expires_at, created_at, last_used_at, user_agent, ip_prefix, method,
      proved_at, credential_version, aal)
    select $1, $2::uuid, u.id, $4::jsonb, $5::timestamptz, $6::timestamptz, $6::timestamptz, $7, $8, $9, $6::timestamptz, u.credential_version, $11::smallint
      from users u where u.id = $3::uuid and u.credential_version = $10 and u.disabled_at is null
      for share
    returning created_at, expires_at`

  /** a signed-in session's first row; false when the credential it proved has changed since */
  async function start (sid: string, row: Omit<Row, 'aal'> & { userId: string }, signin: SigninMeta): Promise<boolean> {
    const { data, userId, publicId, expiresAt, createdAt } = row
    const [written] = await database.query<{ created_at: Date | string, expires_at: Date | string }>(START, [
      sid, publicId, userId, JSON.stringify(data), new Date(expiresAt).toISOString(), new Date(createdAt).toISOString(),
      signin.userAgent, signin.ipPrefix, signin.method, signin.credentialVersion, signin.aal ?? null
    ])
    if (!written) return false
    rows.set(sid, { ...row, createdAt: new Date(written.created_at).getTime(), expiresAt: new Date(written.expires_at).getTime(), aal: signin.aal ?? null })
    return true
  }

  /** store a signed-in session's row (insert, or update unless it has ended meanwhile); whether it was written */
  async function write (sid: string, row: Omit<Row, 'aal'> & { userId: string }, signin?: SigninMeta): Promise<boolean> {
    const { data, userId, publicId, expiresAt, createdAt, lastUsedAt } = row
    const [written] = await upsert.execute({
      id: sid, publicId, userId, data, expiresAt: new Date(expiresAt), createdAt: new Date(createdAt), lastUsedAt: new Date(lastUsedAt),
      userAgent: signin?.userAgent ?? null, ipPrefix: signin?.ipPrefix ?? null, method: signin?.method ?? null, aal: signin?.aal ?? null
    })
    // the level as the row has it: a roll-on never changes it, and another instance may have raised it
    if (written) rows.set(sid, { ...row, createdAt: written.createdAt.getTime(), expiresAt: written.expiresAt.getTime(), aal: levelOf(written.aal) })
    else rows.invalidate(sid)
    return written !== undefined
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
    row?.userId ? (row.aal === null ? { sid, userId: row.userId, publicId: row.publicId } : { sid, userId: row.userId, publicId: row.publicId, aal: row.aal }) : null

  const store = {
    get (sid: string, cb: Callback<SessionData | null>) {
      liveRow(sid)
        .then((row) => cb(null, row ? { ...restored(row.data), userId: row.userId ?? undefined, publicId: row.publicId } : null), cb)
    },
    set (sid: string, session: SessionData & { cookie?: { toJSON?: () => Record<string, unknown> } }, cb: Callback) {
      // Anonymous sessions are not worth a row: only signed-in sessions are stored.
      if (!session.userId || !session.publicId) { cb(); return }
      const data = { cookie: typeof session.cookie?.toJSON === 'function' ? session.cookie.toJSON() : session.cookie }
      const { userId, publicId } = session
      const kept = rows.peek(sid)
      if (kept && live(kept) && kept.userId === userId && kept.publicId === publicId &&
          kept.data.cookie?.originalMaxAge === data.cookie?.originalMaxAge && !rollsOn(kept)) {
        cb()
        return
      }
      const t = now()
      const createdAt = kept?.createdAt ?? t
      if (session.signin && !kept) {
        start(sid, { data, userId, publicId, expiresAt: expiryOf(t, t), createdAt: t, lastUsedAt: t }, session.signin)
          .then((started) => cb(started ? null : new StaleCredential()), cb)
        return
      }
      write(sid, { data, userId, publicId, expiresAt: expiryOf(createdAt, t), createdAt, lastUsedAt: t }, session.signin).then(() => cb(), cb)
    },
    destroy (sid: string, cb: Callback) {
      rows.invalidate(sid)
      db.update(sessions).set({ endedAt: new Date(now()) })
        .where(and(eq(sessions.id, sid), isNull(sessions.endedAt)))
        .returning({ publicId: sessions.publicId })
        .then((rows) => { ended.mark(rows.map((r) => r.publicId)); cb() }, cb)
    }
  }

  return {
    store,
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
