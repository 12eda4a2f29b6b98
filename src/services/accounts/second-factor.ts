// The second factor's check as a proof of the owner (docs/decisions.md, Second factors): a TOTP code
// or a recovery code, for POST /auth/mfa/verify (a level-1 session moves to level 2) and for
// POST /auth/reauthenticate. It goes through the sign-in's per-address backoff: the attempt is
// claimed before the code is checked, a wrong code stays counted as a failed sign-in would, and a
// right one clears the address's failures. A guesser holding a stolen password therefore gets as few
// tries at the code as at the password.
import { eq } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { users } from '../../db/schema.ts'
import type { MfaService } from '../mfa/index.ts'
import { looksLikeTotp } from '../mfa/totp.ts'
import { AUDIT, type AuditService, type RequestMeta } from './audit.ts'
import type { ProofOutcome } from './owner-proof.ts'

export const CODE_MESSAGES = {
  wrong: 'The code is wrong or was used already',
  missing: 'Enter the code from your authenticator app, or a recovery code',
  noTotp: 'This account has no authenticator app: prove it is you another way'
} as const

/** 'code': a TOTP code, or a recovery code typed in its place; 'recovery': a recovery code only */
export type CodeKind = 'code' | 'recovery'

export interface SecondFactorDeps {
  database: Database
  mfa: Pick<MfaService, 'hasTotp' | 'useTotpCode' | 'useRecoveryCode'>
  audit: AuditService
  /** the sign-in's backoff (src/services/accounts/index.ts): 0 when the attempt may go on, else seconds to wait */
  claimAttempt: (email: string) => Promise<number>
  clearAttempts: (email: string) => Promise<void>
}

export function createSecondFactorCheck (deps: SecondFactorDeps) {
  const db = deps.database.db
  return {
    /** whether `typed` is a code of the account's TOTP or one of its unused recovery codes (used up if so) */
    async checkCode (userId: string, typed: string, kind: CodeKind, meta: RequestMeta): Promise<ProofOutcome> {
      const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId))
      if (!user) return { status: 'unknown' }
      if (!await deps.mfa.hasTotp(userId)) return { status: 'refused', message: CODE_MESSAGES.noTotp }
      const retryAfter = await deps.claimAttempt(user.email)
      if (retryAfter > 0) return { status: 'locked', retryAfter }
      const proved = kind === 'code' && looksLikeTotp(typed)
        ? await deps.mfa.useTotpCode(userId, typed)
        : await deps.mfa.useRecoveryCode(userId, typed)
      if (!proved) {
        await deps.audit.record(AUDIT.mfaVerifyFailure, userId, meta)
        return { status: 'refused', message: CODE_MESSAGES.wrong }
      }
      await Promise.all([deps.clearAttempts(user.email), deps.audit.record(AUDIT.mfaVerifySuccess, userId, meta)])
      return { status: 'proved' }
    }
  }
}

export type SecondFactorCheck = ReturnType<typeof createSecondFactorCheck>
