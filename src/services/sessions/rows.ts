// A session's row of the sessions table, as the session service (./store.ts) reads and writes it.
//
// The rows read and written are kept in memory (src/services/caches/view-cache.ts), so that a refresh
// costs no database round trip: a kept row is used only while it is unexpired and its session is not
// in the ended set; otherwise the row is read again. Rolling expiry writes the row again only once its
// last use is ROLL_SLACK_MS old (rollsOn), and refresh re-sends the cookie only then: both expiries
// and last_used_at trail the last refresh by at most that much, instead of a write and a Set-Cookie
// per refresh.
//
// A session's expiry is the earlier of its last use + SESSION_IDLE_TTL and its creation +
// SESSION_ABSOLUTE_TTL (docs/decisions/accounts.md, Account control): using it moves the first on,
// never the second, so no refresh keeps a session alive past its absolute lifetime.
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { sessions } from '../../db/schema/index.ts'
import { createViewCache } from '../caches/view-cache.ts'

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
 * one (docs/decisions/accounts.md, Second factors)
 */
export interface SigninMeta { method: string, userAgent: string | null, ipPrefix: string | null, credentialVersion: number, aal?: Level }

/** a session's authentication level: 1 until its account's second factor is proved, then 2 */
export type Level = 1 | 2

/** a live row of the sessions table, as the store keeps it (times in ms since the epoch) */
export interface Row { data: SessionData, userId: string | null, publicId: string, expiresAt: number, createdAt: number, lastUsedAt: number, aal: Level | null }

const levelOf = (aal: number | null): Level | null => aal === 1 || aal === 2 ? aal : null

export interface SessionRowsDeps {
  database: Database
  /** SESSION_IDLE_TTL: seconds an unused session lives */
  idleSeconds: number
  /** SESSION_ABSOLUTE_TTL: seconds a session lives at most after sign-in */
  absoluteSeconds: number
  /** whether the session of this public id has ended (./ended.ts) */
  isEnded: (publicId: string) => boolean
  now: () => number
}

export function createSessionRows (deps: SessionRowsDeps) {
  const { database, now } = deps
  const db = database.db
  const idleMs = deps.idleSeconds * 1000
  const absoluteMs = deps.absoluteSeconds * 1000
  /** the expiry of a session created at `createdAt` and used at `usedAt` */
  const expiryOf = (createdAt: number, usedAt: number) => Math.min(usedAt + idleMs, createdAt + absoluteMs)

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
  const live = (r: Row | null) => r !== null && r.expiresAt > now() && !deps.isEnded(r.publicId)
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
      // rolling a session on is no proof (docs/decisions/accounts.md, Fresh authentication).
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

  return { kept: rows, live, rollsOn, expiryOf, absoluteMs, start, write, liveRow }
}

export type SessionRows = ReturnType<typeof createSessionRows>
