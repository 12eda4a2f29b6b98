// Second factors of an account (docs/decisions.md, Second factors): its TOTP secret (sealed at rest,
// ./sealing.ts), pending until a first code confirms it, each code accepted once; its one-time
// recovery codes; and what sign-in and GET /auth/info need to know of them. No Fastify types here.
//
// Every write here changes what GET /auth/info shows: the writer tells `changed` before it answers
// (this process's views), and the tables' trigger (drizzle/0011) tells every other process.
import { and, count, eq, isNotNull, isNull, lt, or } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import { mfaRecoveryCodes, mfaTotp, passkeys } from '../../db/schema.ts'
import { hashRecoveryCode, newRecoveryCodes } from './recovery-codes.ts'
import { createSealer } from './sealing.ts'
import { matchingStep, newTotpSecret, normalizeCode, otpauthUrl } from './totp.ts'

/** what GET /auth/info shows of an account's second factors */
export interface MfaStatus { totp: boolean, passkeys: number, recoveryCodesLeft: number }

export interface MfaServiceDeps {
  database: Database
  /** MFA_ENCRYPTION_KEY and MFA_PREVIOUS_ENCRYPTION_KEYS */
  encryptionKey: string
  previousKeys: readonly string[]
  /** this process's account views: the account changed */
  changed: (userId: string) => void
  now?: () => number
}

export type ConfirmOutcome =
  | { status: 'confirmed', recoveryCodes: string[], firstFactor: boolean }
  | { status: 'wrong-code' }
  | { status: 'none-pending' }

export function createMfaService (deps: MfaServiceDeps) {
  const db = deps.database.db
  const now = deps.now ?? Date.now
  const sealer = createSealer(deps.encryptionKey, deps.previousKeys)

  const confirmedTotp = (userId: string) => and(eq(mfaTotp.userId, userId), isNotNull(mfaTotp.confirmedAt))

  /** whether the account has a factor other than its confirmed TOTP (a passkey) */
  async function hasPasskey (userId: string): Promise<boolean> {
    const [row] = await db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).limit(1)
    return row !== undefined
  }

  /** whether the account has a second factor: a confirmed TOTP or a passkey (one statement) */
  async function hasFactor (userId: string): Promise<boolean> {
    const rows = await deps.database.query<{ has: boolean }>(
      `select exists(select 1 from mfa_totp where user_id = $1 and confirmed_at is not null)
           or exists(select 1 from passkeys where user_id = $1) as has`, [userId])
    return rows[0]?.has === true
  }

  return {
    hasFactor,

    /** the level a sign-in of this account starts at: 1 with a second factor, none (undefined) without */
    async signinLevel (userId: string): Promise<1 | undefined> {
      return await hasFactor(userId) ? 1 : undefined
    },

    async status (userId: string): Promise<MfaStatus> {
      const [[totp], [keys], [codes]] = await Promise.all([
        db.select({ userId: mfaTotp.userId }).from(mfaTotp).where(confirmedTotp(userId)),
        db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId)),
        db.select({ n: count() }).from(mfaRecoveryCodes).where(and(eq(mfaRecoveryCodes.userId, userId), isNull(mfaRecoveryCodes.usedAt)))
      ])
      return { totp: totp !== undefined, passkeys: keys?.n ?? 0, recoveryCodesLeft: codes?.n ?? 0 }
    },

    /**
     * A new pending TOTP secret for the account, replacing a pending one; null when a confirmed one
     * exists (it is removed first, on purpose).
     */
    async beginTotp (userId: string, label: string): Promise<{ secret: string, otpauthUrl: string } | null> {
      const secret = newTotpSecret()
      const sealed = sealer.seal(secret, userId)
      const written = await db.insert(mfaTotp).values({ userId, secret: sealed, createdAt: new Date(now()) })
        .onConflictDoUpdate({ target: mfaTotp.userId, set: { secret: sealed, lastStep: null, createdAt: new Date(now()) }, where: isNull(mfaTotp.confirmedAt) })
        .returning({ userId: mfaTotp.userId })
      if (written.length === 0) return null
      return { secret, otpauthUrl: otpauthUrl(secret, label) }
    },

    /**
     * The first code of the pending secret confirms it: ten new recovery codes replace any earlier
     * ones. firstFactor: the account had no second factor before.
     */
    async confirmTotp (userId: string, typed: string): Promise<ConfirmOutcome> {
      const [pending] = await db.select({ secret: mfaTotp.secret }).from(mfaTotp)
        .where(and(eq(mfaTotp.userId, userId), isNull(mfaTotp.confirmedAt)))
      if (!pending) return { status: 'none-pending' }
      const opened = sealer.open(pending.secret, userId)
      const step = opened === null ? null : matchingStep(opened.plain, normalizeCode(typed), now())
      if (step === null) return { status: 'wrong-code' }
      const codes = newRecoveryCodes()
      const firstFactor = !await hasPasskey(userId)
      const confirmed = await db.transaction(async (tx) => {
        // the secret the code was checked against: a set-up begun again meanwhile is not confirmed by it
        const rows = await tx.update(mfaTotp).set({ confirmedAt: new Date(now()), lastStep: step })
          .where(and(eq(mfaTotp.userId, userId), isNull(mfaTotp.confirmedAt), eq(mfaTotp.secret, pending.secret)))
          .returning({ userId: mfaTotp.userId })
        if (rows.length === 0) return false
        await tx.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, userId))
        await tx.insert(mfaRecoveryCodes).values(codes.map((c) => ({ userId, hash: hashRecoveryCode(c) })))
        return true
      })
      if (!confirmed) return { status: 'none-pending' }
      deps.changed(userId)
      return { status: 'confirmed', recoveryCodes: codes, firstFactor }
    },

    /** remove the TOTP secret and the recovery codes: what was removed, a confirmed secret, a pending one or none */
    async removeTotp (userId: string): Promise<'confirmed' | 'pending' | 'none'> {
      const removed = await db.transaction(async (tx) => {
        const [row] = await tx.delete(mfaTotp).where(eq(mfaTotp.userId, userId)).returning({ confirmedAt: mfaTotp.confirmedAt })
        await tx.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, userId))
        return row === undefined ? 'none' : row.confirmedAt === null ? 'pending' : 'confirmed'
      })
      deps.changed(userId)
      return removed
    },

    /** whether the account has a confirmed TOTP */
    async hasTotp (userId: string): Promise<boolean> {
      const [row] = await db.select({ userId: mfaTotp.userId }).from(mfaTotp).where(confirmedTotp(userId))
      return row !== undefined
    },

    /**
     * A TOTP code of the account's confirmed secret, accepted once: its step must be later than the
     * last accepted one, and taking it is one conditional update, so two requests with one code
     * cannot both pass. A secret sealed under a rotated-out key is sealed again under the current one.
     */
    async useTotpCode (userId: string, typed: string): Promise<boolean> {
      const [row] = await db.select({ secret: mfaTotp.secret }).from(mfaTotp).where(confirmedTotp(userId))
      if (!row) return false
      const opened = sealer.open(row.secret, userId)
      if (opened === null) return false
      const step = matchingStep(opened.plain, normalizeCode(typed), now())
      if (step === null) return false
      const taken = await db.update(mfaTotp)
        .set({ lastStep: step, ...(opened.stale ? { secret: sealer.seal(opened.plain, userId) } : {}) })
        .where(and(confirmedTotp(userId), eq(mfaTotp.secret, row.secret), or(isNull(mfaTotp.lastStep), lt(mfaTotp.lastStep, step))))
        .returning({ userId: mfaTotp.userId })
      return taken.length > 0
    },

    /** a recovery code of the account, used up by this call; false when unknown or used already */
    async useRecoveryCode (userId: string, typed: string): Promise<boolean> {
      const used = await db.update(mfaRecoveryCodes).set({ usedAt: new Date(now()) })
        .where(and(eq(mfaRecoveryCodes.userId, userId), eq(mfaRecoveryCodes.hash, hashRecoveryCode(typed)), isNull(mfaRecoveryCodes.usedAt)))
        .returning({ userId: mfaRecoveryCodes.userId })
      if (used.length === 0) return false
      deps.changed(userId)
      return true
    }
  }
}

export type MfaService = ReturnType<typeof createMfaService>
