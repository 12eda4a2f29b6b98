// Staff changing an account's report credits (docs/operations.md, Support → Actions): the balance,
// a credit_ledger row with the balance it left, and the audit row, in one transaction. The user's
// row is locked first (./target.ts), so two changes of one account take turns and neither is lost,
// and a change that would take the balance below 0 is refused with nothing written.
import { eq } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { creditLedger, users } from '../../db/schema/index.ts'
import { Conflict } from '../../errors.ts'
import { AUDIT, type AuditService, type RequestMeta } from '../accounts/audit.ts'
import type { AccountChanges } from '../accounts/changes.ts'
import { lockTarget } from './target.ts'

export interface CreditsDeps {
  database: Database
  audit: Pick<AuditService, 'recordStaffIn'>
  accountChanges: Pick<AccountChanges, 'changed'>
}

export function createStaffCredits (deps: CreditsDeps) {
  const db = deps.database.db
  return {
    /** add `delta` (negative: take away) to `userId`'s credits; the balance after. 404 unknown, 409 below 0 */
    async change (userId: string, actorId: string, delta: number, reason: string, meta: RequestMeta): Promise<number> {
      const balance = await db.transaction(async (tx) => {
        const target = await lockTarget(tx, userId, actorId)
        const next = target.credits + delta
        if (next < 0) throw new Conflict(`the account has ${target.credits} credits: taking ${-delta} would leave fewer than 0`)
        await tx.update(users).set({ reportCredits: next }).where(eq(users.id, userId))
        await tx.insert(creditLedger).values({ userId, delta, balance: next, reason, actorId })
        await deps.audit.recordStaffIn(tx, AUDIT.adminCredits, { userId, actorId, meta, details: { reason, delta, balance: next } })
        return next
      })
      deps.accountChanges.changed(userId)
      return balance
    }
  }
}

export type StaffCredits = ReturnType<typeof createStaffCredits>
