// Staff ending every session of an account (docs/operations.md, Support → Actions): as the holder's
// own "sign out everywhere", every live session ended (its JWTs refused on every instance through the
// sessions table's trigger, its streams ended), with the audit row in the same transaction. The
// account's API keys stay: a person who lost a device keeps their programs (disable cuts those off).
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { sessions } from '../../db/schema/index.ts'
import { AUDIT, type AuditService, type RequestMeta } from '../accounts/audit.ts'
import { lockTarget } from './target.ts'

export interface EndSessionsDeps {
  database: Database
  audit: Pick<AuditService, 'recordStaffIn'>
  /** the session service's marking of ended sessions, here at once */
  announceEnded: (publicIds: string[]) => void | Promise<void>
}

export function createStaffSessionEnding (deps: EndSessionsDeps) {
  const db = deps.database.db
  return {
    /** end every live session of `userId`; how many ended. 404 unknown, 403 a staff account by support */
    async endAll (userId: string, actorId: string, reason: string, meta: RequestMeta): Promise<number> {
      const ended = await db.transaction(async (tx) => {
        await lockTarget(tx, userId, actorId)
        const rows = await tx.update(sessions).set({ endedAt: sql`now()` })
          .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt), gt(sessions.expiresAt, sql`now()`)))
          .returning({ publicId: sessions.publicId })
        await deps.audit.recordStaffIn(tx, AUDIT.adminSessionsEnd, { userId, actorId, meta, details: { reason, ended: rows.length } })
        return rows.map((r) => r.publicId)
      })
      if (ended.length) await deps.announceEnded(ended)
      return ended.length
    }
  }
}

export type StaffSessionEnding = ReturnType<typeof createStaffSessionEnding>
