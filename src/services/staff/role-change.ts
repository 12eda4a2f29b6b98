// A change of an account's staff role (docs/operations.md, Support): by an admin (PUT
// /admin/users/{id}/role), by the operator (`npm run admins`) or by ADMIN_EMAILS at a sign-in. The
// change and its `admin.role` audit row are one transaction. The service always keeps an admin: the
// admins' rows are locked before they are counted, so two admins demoting each other at once are
// judged one after the other, and the second finds the last admin.
import { and, eq, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { users } from '../../db/schema/index.ts'
import { AUDIT, type AuditService, type RequestMeta } from '../accounts/audit.ts'
import type { Role } from './roles.ts'

export interface RoleChangeBy {
  /** the admin who changes it; null for the operator's command or ADMIN_EMAILS */
  actorId: string | null
  meta: RequestMeta | null
  reason: string
}

export type RoleChange =
  | { outcome: 'changed' | 'unchanged', from: Role, to: Role }
  | { outcome: 'unknown' }
  /** the account is the last admin, and the change would leave none */
  | { outcome: 'last-admin' }
  /** an admin may not change their own role */
  | { outcome: 'self' }

export interface RoleChangeDeps {
  database: Database
  audit: AuditService
  /** this process's views of the account (GET /auth/info's role); the users trigger tells the others */
  changed?: (userId: string) => void
}

export function createRoleChanges (deps: RoleChangeDeps) {
  const db = deps.database.db
  return {
    async set (userId: string, to: Role, by: RoleChangeBy): Promise<RoleChange> {
      const change = await db.transaction(async (tx): Promise<RoleChange> => {
        // every admin's row, locked: whoever comes second waits and counts what the first left
        const admins = await tx.select({ id: users.id }).from(users).where(eq(users.role, 'admin')).for('update')
        const [target] = await tx.select({ role: users.role }).from(users).where(eq(users.id, userId)).for('update')
        if (!target) return { outcome: 'unknown' as const }
        const from = target.role
        if (from === to) return { outcome: 'unchanged' as const, from, to }
        if (by.actorId === userId) return { outcome: 'self' as const }
        if (from === 'admin' && admins.length <= 1) return { outcome: 'last-admin' as const }
        await tx.update(users).set({ role: to }).where(and(eq(users.id, userId), eq(users.role, from)))
        await deps.audit.recordStaffIn(tx, AUDIT.adminRole, { userId, actorId: by.actorId, meta: by.meta, details: { from, to, reason: by.reason } })
        return { outcome: 'changed' as const, from, to }
      })
      if (change.outcome === 'changed') deps.changed?.(userId)
      return change
    },

    /** the staff, admins first, then by address */
    async staff (): Promise<Array<{ id: string, email: string, role: Role }>> {
      return await db.select({ id: users.id, email: users.email, role: users.role }).from(users)
        .where(sql`${users.role} <> 'user'`).orderBy(sql`${users.role} = 'admin' desc`, users.email)
    }
  }
}

export type RoleChanges = ReturnType<typeof createRoleChanges>
