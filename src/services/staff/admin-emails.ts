// ADMIN_EMAILS (docs/operations.md, Support): such an address becomes `admin` once confirmed, at its
// confirmation and at each sign-in of the confirmed account (password or Google), with an
// `admin.role` audit row naming ADMIN_EMAILS. Only a listed address costs a statement: the check of
// every other sign-in is a lookup in memory.
import { and, eq, isNotNull, ne } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { users } from '../../db/schema/index.ts'
import { AUDIT, type AuditService } from '../accounts/audit.ts'

export const ADMIN_EMAILS_REASON = 'listed in ADMIN_EMAILS'

export interface AdminEmailsDeps {
  database: Database
  audit: AuditService
  emails: readonly string[]
  /** this process's views of the account (GET /auth/info's role); the users trigger tells the others */
  changed?: (userId: string) => void
}

export function createAdminEmails (deps: AdminEmailsDeps) {
  const listed = new Set(deps.emails.map((e) => e.toLowerCase()))
  const db = deps.database.db
  return {
    /** whether the address is listed (addresses are stored lowercase) */
    listed: (email: string): boolean => listed.has(email.toLowerCase()),

    /** make the account admin when its address is listed and confirmed; whether it changed */
    async promote (userId: string): Promise<boolean> {
      if (listed.size === 0) return false
      const promoted = await db.transaction(async (tx) => {
        const [row] = await tx.select({ email: users.email, role: users.role }).from(users)
          .where(and(eq(users.id, userId), isNotNull(users.confirmedAt), ne(users.role, 'admin'))).for('update')
        if (!row || !listed.has(row.email)) return false
        await tx.update(users).set({ role: 'admin' }).where(eq(users.id, userId))
        await deps.audit.recordStaffIn(tx, AUDIT.adminRole, {
          userId, actorId: null, meta: null, details: { from: row.role, to: 'admin', reason: ADMIN_EMAILS_REASON }
        })
        return true
      })
      if (promoted) deps.changed?.(userId)
      return promoted
    }
  }
}

export type AdminEmails = ReturnType<typeof createAdminEmails>
