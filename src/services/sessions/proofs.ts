// When a session last proved its owner (sessions.proved_at; docs/decisions/accounts.md, Fresh
// authentication): set as a sign-in writes its new row (./rows.ts), renewed by POST
// /auth/reauthenticate, and read by the sensitive calls that need a recent proof. Read from the
// database: only those calls ask.
import { and, eq, gt, isNull } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { sessions } from '../../db/schema/index.ts'

export function createSessionProofs (database: Database, now: () => number) {
  const db = database.db
  return {
    /** when the live session of this public id last proved its owner (ms since the epoch), or null when it has no live row */
    async provedAt (publicId: string): Promise<number | null> {
      const [row] = await db.select({ provedAt: sessions.provedAt }).from(sessions)
        .where(and(eq(sessions.publicId, publicId), isNull(sessions.endedAt), gt(sessions.expiresAt, new Date(now()))))
      return row ? row.provedAt.getTime() : null
    },

    /** the live session of this public id proved its owner now (POST /auth/reauthenticate); whether it is live */
    async proved (publicId: string): Promise<boolean> {
      const at = new Date(now())
      const rows = await db.update(sessions).set({ provedAt: at })
        .where(and(eq(sessions.publicId, publicId), isNull(sessions.endedAt), gt(sessions.expiresAt, at)))
        .returning({ publicId: sessions.publicId })
      return rows.length > 0
    }
  }
}
