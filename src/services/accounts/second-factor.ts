// The second factor's check as a proof of the owner (docs/decisions/accounts.md, Second factors): a
// TOTP code or a recovery code, for POST /auth/mfa/verify (a level-1 session moves to level 2) and
// for POST /auth/reauthenticate. It goes through the account's own guess budget (./code-budget.ts):
// the attempt is claimed before the code is checked and a wrong code stays counted, 10 per 15
// minutes whatever happens between them. A password sign-in never clears it, so a guesser holding a
// stolen password gets no more tries at the code by signing in again.
import { eq } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { users } from '../../db/schema/index.ts'
import type { CodeBudget } from './code-budget.ts'
import type { MfaService } from '../mfa/index.ts'
import { looksLikeTotp } from '../mfa/totp.ts'
import { AUDIT, type AuditService, type RequestMeta } from './audit.ts'
import type { ProofOutcome } from './owner-proof.ts'

export const CODE_MESSAGES = {
  wrong: 'The code is wrong or was used already',
  missing: 'Enter the code from your authenticator app, or a recovery code',
  noTotp: 'This account has no authenticator app: prove it is you another way'
} as const

/** the name its lockouts are logged under (src/plugins/refusal-log.ts), counting per user */
export const SECOND_FACTOR_LIMITER = 'second-factor'

/** 'code': a TOTP code, or a recovery code typed in its place; 'recovery': a recovery code only */
export type CodeKind = 'code' | 'recovery'

export interface SecondFactorDeps {
  database: Database
  mfa: Pick<MfaService, 'hasTotp' | 'useTotpCode' | 'useRecoveryCode'>
  audit: AuditService
  /** the account's budget of wrong codes */
  budget: CodeBudget
}

export function createSecondFactorCheck (deps: SecondFactorDeps) {
  const db = deps.database.db
  return {
    /** whether `typed` is a code of the account's TOTP or one of its unused recovery codes (used up if so) */
    async checkCode (userId: string, typed: string, kind: CodeKind, meta: RequestMeta): Promise<ProofOutcome> {
      const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId))
      if (!user) return { status: 'unknown' }
      if (!await deps.mfa.hasTotp(userId)) return { status: 'refused', message: CODE_MESSAGES.noTotp }
      const retryAfter = await deps.budget.claim(userId)
      if (retryAfter > 0) return { status: 'locked', retryAfter, limiter: SECOND_FACTOR_LIMITER }
      const proved = kind === 'code' && looksLikeTotp(typed)
        ? await deps.mfa.useTotpCode(userId, typed)
        : await deps.mfa.useRecoveryCode(userId, typed)
      if (!proved) {
        await deps.audit.record(AUDIT.mfaVerifyFailure, userId, meta)
        return { status: 'refused', message: CODE_MESSAGES.wrong }
      }
      await Promise.all([deps.budget.release(userId), deps.audit.record(AUDIT.mfaVerifySuccess, userId, meta)])
      return { status: 'proved' }
    }
  }
}

export type SecondFactorCheck = ReturnType<typeof createSecondFactorCheck>
