// Staff sending an account a recovery or confirmation link (docs/operations.md, Support → Actions):
// through the same services as the sign-in page's "Forgot password" and the account page's "send the
// confirmation again", so the mail goes to the account's own address and the link is known only to
// that mailbox (never answered, never logged). A disabled account's mails are held, so it gets none;
// an account already confirmed needs no confirmation link: both are refused with 409, nothing sent.
import type { Database } from '../../db/client.ts'
import { Conflict } from '../../errors.ts'
import { AUDIT, type AuditService, type RequestMeta } from '../accounts/audit.ts'
import type { AccountService } from '../accounts/index.ts'
import type { RecoveryService } from '../accounts/recovery.ts'
import { lockTarget } from './target.ts'

export type LinkKind = 'recovery' | 'confirmation'

export interface StaffLinksDeps {
  database: Database
  audit: Pick<AuditService, 'recordStaffIn'>
  recovery: Pick<RecoveryService, 'request'>
  accounts: Pick<AccountService, 'resendConfirmation'>
}

export function createStaffLinks (deps: StaffLinksDeps) {
  const db = deps.database.db
  return {
    /** 404 unknown, 403 a staff account by support, 409 disabled or (confirmation) already confirmed */
    async send (userId: string, actorId: string, kind: LinkKind, reason: string, meta: RequestMeta): Promise<void> {
      const target = await lockTarget(db, userId, actorId)
      if (target.disabled) throw new Conflict('the account is disabled: its mails are held until it is enabled')
      if (kind === 'confirmation' && target.confirmed) throw new Conflict('the account is already confirmed: no confirmation link is needed')
      if (kind === 'recovery') await deps.recovery.request(target.email)
      else await deps.accounts.resendConfirmation(userId)
      await deps.audit.recordStaffIn(db, AUDIT.adminMail, { userId, actorId, meta, details: { kind, reason } })
    }
  }
}

export type StaffLinks = ReturnType<typeof createStaffLinks>
