// Staff removing every second factor of an account (docs/operations.md, Support → Actions): what
// `npm run factors -- remove` does (../accounts/factor-removal.ts), with the staff member as the audit
// row's actor and the proof of the holder's identity they gave in its details.
import type { Database } from '../../db/client.ts'
import { Conflict } from '../../errors.ts'
import { AUDIT, type AuditService, type RequestMeta } from '../accounts/audit.ts'
import type { AccountChanges } from '../accounts/changes.ts'
import type { FactorRemoval, FactorsRemoved } from '../accounts/factor-removal.ts'
import { lockTarget } from './target.ts'

export interface StaffFactorsDeps {
  database: Database
  audit: Pick<AuditService, 'recordStaffIn'>
  removal: FactorRemoval
  /** the session service's marking of ended keys, here at once (the credential change marks the sessions) */
  announceEnded: (publicIds: string[]) => void | Promise<void>
  accountChanges: Pick<AccountChanges, 'changed'>
}

export function createStaffFactorRemoval (deps: StaffFactorsDeps) {
  return {
    /** 404 unknown, 403 a staff account by support, 409 nothing to remove (then nothing changed) */
    async remove (userId: string, actorId: string, proof: string, reason: string | undefined, meta: RequestMeta): Promise<FactorsRemoved> {
      await lockTarget(deps.database.db, userId, actorId)
      const details = reason === undefined ? { proof } : { proof, reason }
      const removed = await deps.removal.remove(userId, async (tx) => {
        await deps.audit.recordStaffIn(tx, AUDIT.adminFactorsRemove, { userId, actorId, meta, details })
      })
      if (removed === null) throw new Conflict('the account has no second factor: nothing changed')
      if (removed.cut.apiKeys.length) await deps.announceEnded(removed.cut.apiKeys)
      deps.accountChanges.changed(userId)
      return removed
    }
  }
}

export type StaffFactorRemoval = ReturnType<typeof createStaffFactorRemoval>
