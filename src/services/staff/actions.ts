// The staff write actions on an account (docs/operations.md, Support → Actions), built once from the
// services they go through; the routes in src/routes/admin/user-actions.ts call them.
import type { Database } from '../../db/client.ts'
import type { AuditService } from '../accounts/audit.ts'
import type { AccessCutOff } from '../accounts/cut-off.ts'
import type { AccountChanges } from '../accounts/changes.ts'
import type { AccountService } from '../accounts/index.ts'
import type { RecoveryService } from '../accounts/recovery.ts'
import type { FactorRemoval } from '../accounts/factor-removal.ts'
import { createAccountDisabling } from './disable.ts'
import { createStaffCredits } from './credits.ts'
import { createStaffSessionEnding } from './end-sessions.ts'
import { createStaffFactorRemoval } from './factors.ts'
import { createStaffLinks } from './links.ts'
import { createStaffUsers } from './users.ts'

export interface StaffActionsDeps {
  database: Database
  audit: Pick<AuditService, 'recordStaffIn'>
  cutOff: Pick<AccessCutOff, 'within' | 'recordIn'>
  removal: FactorRemoval
  recovery: Pick<RecoveryService, 'request'>
  accounts: Pick<AccountService, 'resendConfirmation'>
  announceEnded: (publicIds: string[]) => void | Promise<void>
  accountChanges: Pick<AccountChanges, 'changed'>
}

export function createStaffActions (deps: StaffActionsDeps) {
  const users = createStaffUsers({ database: deps.database })
  return {
    ...createAccountDisabling(deps),
    credits: createStaffCredits(deps),
    sessions: createStaffSessionEnding(deps),
    factors: createStaffFactorRemoval(deps),
    links: createStaffLinks(deps),
    /** the account as disable and enable answer it: as the staff list shows it */
    user: users.item
  }
}

export type StaffActions = ReturnType<typeof createStaffActions>
