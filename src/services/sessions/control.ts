// What a signed-in person can see and do with their own sessions (GET and DELETE /auth/sessions;
// docs/decisions/accounts.md, Account control). A credential change ends sessions in its own
// transaction (./credential-change.ts).
// Every ending sets ended_at, which revokes the session's JWTs on every instance (drizzle/0005's
// trigger), and is marked here at once through the session service.
import { and, desc, eq, gt, isNull, ne, sql, type SQL } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { sessions } from '../../db/schema/index.ts'

/** one of a user's live sessions, as the account page lists it */
export interface SessionListing {
  publicId: string
  createdAt: Date
  lastUsedAt: Date
  userAgent: string | null
  ipPrefix: string | null
}

export interface SessionControlDeps {
  database: Database
  /** the session service's own marking of ended sessions (resolved at call time) */
  announceEnded: (publicIds: string[]) => Promise<void>
  now?: () => number
}

export function createSessionControl (deps: SessionControlDeps) {
  const db = deps.database.db
  const now = deps.now ?? Date.now

  async function endWhere (condition: SQL | undefined): Promise<string[]> {
    const ended = await db.update(sessions).set({ endedAt: new Date(now()) })
      .where(and(isNull(sessions.endedAt), condition))
      .returning({ publicId: sessions.publicId })
    const ids = ended.map((r) => r.publicId)
    if (ids.length) await deps.announceEnded(ids)
    return ids
  }

  return {
    /** a user's live sessions, most recently used first */
    async listOfUser (userId: string): Promise<SessionListing[]> {
      const used = sql`coalesce(${sessions.lastUsedAt}, ${sessions.createdAt})`
      const found = await db.select({
        publicId: sessions.publicId,
        createdAt: sessions.createdAt,
        lastUsedAt: sessions.lastUsedAt,
        userAgent: sessions.userAgent,
        ipPrefix: sessions.ipPrefix
      }).from(sessions)
        .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt), gt(sessions.expiresAt, new Date(now()))))
        .orderBy(desc(used), desc(sessions.createdAt))
      return found.map((r) => ({ ...r, lastUsedAt: r.lastUsedAt ?? r.createdAt }))
    },

    /** end one live session of this user; false when the user has no such session */
    async endOne (userId: string, publicId: string): Promise<boolean> {
      const ended = await endWhere(and(eq(sessions.userId, userId), eq(sessions.publicId, publicId), gt(sessions.expiresAt, new Date(now()))))
      return ended.length > 0
    },

    /** end every session of this user but the caller's; how many ended */
    async endOthers (userId: string, keepPublicId: string): Promise<number> {
      return (await endWhere(and(eq(sessions.userId, userId), ne(sessions.publicId, keepPublicId)))).length
    },

    /** end every session of this user */
    async endAll (userId: string): Promise<number> {
      return (await endWhere(eq(sessions.userId, userId))).length
    },

    /** end every live session of every user (an operator's `npm run sessions -- end --all`) */
    async endEvery (): Promise<number> {
      return (await endWhere(undefined)).length
    },

    /** how a session was signed in ('password', 'google', 'recovery'), or null when unknown */
    async methodOf (publicId: string): Promise<string | null> {
      const [row] = await db.select({ method: sessions.method }).from(sessions).where(eq(sessions.publicId, publicId))
      return row?.method ?? null
    }
  }
}

export type SessionControl = ReturnType<typeof createSessionControl>
