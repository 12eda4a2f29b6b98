// Disabling an account and enabling it again (docs/operations.md, Support → Actions;
// docs/decisions/accounts.md, Staff actions). A disable, in one transaction with its audit rows:
// users.disabled_at set, every session of the account ended and every API key revoked and webhook
// endpoint disabled (../accounts/cut-off.ts). The endings set ended_at and revoked_at, whose
// triggers NOTIFY every instance in that transaction (drizzle/0005, drizzle/0009): the account's
// JWTs and keys are refused everywhere, and its streams end, as for a sign-out. A sign-in of the
// account starts no session while disabled_at is set (../sessions/rows.ts, START), whichever of the
// two reaches the user's row first, as with a credential change. Nothing of the account is deleted:
// enabling clears disabled_at, and its reports, credits, watches and endpoints are as they were
// (the keys stay revoked and the endpoints disabled: whoever had the account's password may have
// made them).
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { sessions, users } from '../../db/schema/index.ts'
import { AUDIT, type AuditService, type RequestMeta } from '../accounts/audit.ts'
import type { AccessCutOff } from '../accounts/cut-off.ts'
import type { AccountChanges } from '../accounts/changes.ts'
import { lockTarget } from './target.ts'

export interface DisableDeps {
  database: Database
  audit: Pick<AuditService, 'recordStaffIn'>
  cutOff: Pick<AccessCutOff, 'within' | 'recordIn'>
  /** the session service's marking of ended sessions and keys, here at once (the triggers tell the other instances) */
  announceEnded: (publicIds: string[]) => void | Promise<void>
  accountChanges: Pick<AccountChanges, 'changed'>
}

/** what a disable or enable did: changed false when the account already was so (then nothing was written) */
export interface Toggled { changed: boolean }

export function createAccountDisabling (deps: DisableDeps) {
  const db = deps.database.db

  return {
    /** disable `userId` for `actorId`; 404 unknown, 409 their own account, 403 a staff account by support */
    async disable (userId: string, actorId: string, reason: string, meta: RequestMeta): Promise<Toggled> {
      const done = await db.transaction(async (tx) => {
        const target = await lockTarget(tx, userId, actorId, { notSelf: 'you cannot disable your own account' })
        if (target.disabled) return null
        await tx.update(users).set({ disabledAt: sql`now()` }).where(eq(users.id, userId))
        const ended = await tx.update(sessions).set({ endedAt: sql`now()` })
          .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt)))
          .returning({ publicId: sessions.publicId })
        const cut = await deps.cutOff.within(tx, userId)
        await deps.audit.recordStaffIn(tx, AUDIT.adminDisable, {
          userId, actorId, meta, details: { reason, sessionsEnded: ended.length, apiKeysRevoked: cut.apiKeys.length, webhooksDisabled: cut.webhooks.length }
        })
        await deps.cutOff.recordIn(tx, userId, cut)
        return [...ended.map((s) => s.publicId), ...cut.apiKeys]
      })
      if (done === null) return { changed: false }
      if (done.length) await deps.announceEnded(done)
      deps.accountChanges.changed(userId)
      return { changed: true }
    },

    /** enable `userId` again; 404 unknown, 403 a staff account by support */
    async enable (userId: string, actorId: string, reason: string, meta: RequestMeta): Promise<Toggled> {
      const changed = await db.transaction(async (tx) => {
        const target = await lockTarget(tx, userId, actorId)
        if (!target.disabled) return false
        await tx.update(users).set({ disabledAt: null }).where(eq(users.id, userId))
        await deps.audit.recordStaffIn(tx, AUDIT.adminEnable, { userId, actorId, meta, details: { reason } })
        return true
      })
      if (changed) deps.accountChanges.changed(userId)
      return { changed }
    }
  }
}

export type AccountDisabling = ReturnType<typeof createAccountDisabling>
