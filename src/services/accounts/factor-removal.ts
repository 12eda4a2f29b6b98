// Removing every second factor of an account whose holder lost them all, once their identity was
// proved out of band (docs/operations.md, Lost second factors): `npm run factors -- remove` and staff's
// DELETE /admin/users/{id}/factors. The authenticator app, its recovery codes and the passkeys go as
// one credential change (docs/decisions/accounts.md, Credential versions), which ends every session
// of the account and, in the same transaction, revokes its API keys and disables its webhook
// endpoints (docs/decisions/accounts.md, Recovery cuts off an intruder): whoever took the factors'
// place may have made them. The account then signs in with its password or Google at no level, and
// may set up a second factor again.
import { eq } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { mfaRecoveryCodes, mfaTotp, passkeys } from '../../db/schema/index.ts'
import type { CredentialChanges } from '../sessions/credential-change.ts'
import type { AccessCutOff, CutOff } from './cut-off.ts'

/** what a removal took away, and what its change ended and cut off */
export interface FactorsRemoved {
  /** the authenticator app (confirmedAt null: a set-up never confirmed), or null when there was none */
  totp: { confirmedAt: Date | null } | null
  codes: Array<{ usedAt: Date | null }>
  keys: Array<{ name: string }>
  cut: CutOff
  /** the public ids of the sessions the change ended */
  ended: string[]
}

export interface FactorRemovalDeps {
  credentials: Pick<CredentialChanges, 'change'>
  cutOff: Pick<AccessCutOff, 'within' | 'recordIn'>
}

export function createFactorRemoval (deps: FactorRemovalDeps) {
  return {
    /**
     * Remove every second factor of `userId`; `record(tx)` writes the audit row of whoever removed
     * them, in the change's transaction (the row is there exactly when the factors are gone). Null
     * when the account is unknown or has nothing to remove: then nothing changed, no session ended
     * and no row was written.
     */
    async remove (userId: string, record: (tx: Db) => Promise<void>): Promise<FactorsRemoved | null> {
      const changed = await deps.credentials.change(userId, null, async (tx) => {
        const totp = await tx.delete(mfaTotp).where(eq(mfaTotp.userId, userId)).returning({ confirmedAt: mfaTotp.confirmedAt })
        const codes = await tx.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, userId)).returning({ usedAt: mfaRecoveryCodes.usedAt })
        const keys = await tx.delete(passkeys).where(eq(passkeys.userId, userId)).returning({ name: passkeys.name })
        if (!totp.length && !codes.length && !keys.length) return null
        await record(tx)
        const cut = await deps.cutOff.within(tx, userId)
        await deps.cutOff.recordIn(tx, userId, cut)
        return { totp: totp[0] ?? null, codes, keys, cut }
      })
      return changed === null ? null : { ...changed.value, ended: changed.ended }
    }
  }
}

export type FactorRemoval = ReturnType<typeof createFactorRemoval>
