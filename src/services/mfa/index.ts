// Second factors of an account (docs/decisions/accounts.md, Second factors): its TOTP secret
// (sealed at rest, ./sealing.ts), pending until a first code confirms it, each code accepted once;
// its one-time recovery codes; and what sign-in and GET /auth/info need to know of them. No Fastify
// types here.
//
// Every write here changes what GET /auth/info shows: the writer tells `changed` before it answers
// (this process's views), and the tables' trigger (drizzle/0015) tells every other process.
import { and, eq, getTableName, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import type { Database, Db } from '../../db/client.ts'
import { mfaRecoveryCodes, mfaTotp, passkeys } from '../../db/schema/index.ts'
import { hashRecoveryCode, newRecoveryCodes } from './recovery-codes.ts'
import { createSealer } from './sealing.ts'
import { matchingStep, newTotpSecret, normalizeCode, otpauthUrl } from './totp.ts'

/**
 * What GET /auth/info shows of an account's second factors, as columns of the query that reads its
 * users row (`userId`: that row's id column): the account view loads in the round trips it took
 * before second factors existed.
 */
export function mfaStatusColumns (userId: AnyPgColumn) {
  // The outer column written with its table: drizzle writes the columns of a one-table query bare,
  // and a bare "id" inside the passkeys subquery would name the passkey's own id column.
  const owner = sql.raw(`"${getTableName(userId.table)}"."${userId.name}"`)
  return {
    totp: sql<boolean>`exists(select 1 from ${mfaTotp} where ${mfaTotp.userId} = ${owner} and ${mfaTotp.confirmedAt} is not null)`,
    passkeys: sql<number>`(select count(*) from ${passkeys} where ${passkeys.userId} = ${owner})::int`,
    recoveryCodesLeft: sql<number>`(select count(*) from ${mfaRecoveryCodes} where ${mfaRecoveryCodes.userId} = ${owner} and ${mfaRecoveryCodes.usedAt} is null)::int`
  }
}

export interface MfaServiceDeps {
  database: Database
  /** MFA_ENCRYPTION_KEY and MFA_PREVIOUS_ENCRYPTION_KEYS */
  encryptionKey: string
  previousKeys: readonly string[]
  /** this process's account views: the account changed */
  changed: (userId: string) => void
  now?: () => number
}

/** a pending set-up's first code, checked: `right` carries what confirming it writes */
export type PendingCheck =
  | { status: 'right', sealed: string, step: number, firstFactor: boolean }
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

    /** hasFactor in the transaction `tx` (a credential change removing one) */
    async hasFactorIn (tx: Db, userId: string): Promise<boolean> {
      const [totp] = await tx.select({ userId: mfaTotp.userId }).from(mfaTotp).where(confirmedTotp(userId)).limit(1)
      if (totp) return true
      const [passkey] = await tx.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).limit(1)
      return passkey !== undefined
    },

    /** the level a sign-in of this account starts at: 1 with a second factor, none (undefined) without */
    async signinLevel (userId: string): Promise<1 | undefined> {
      return await hasFactor(userId) ? 1 : undefined
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
     * Whether `typed` is a code of the pending secret; firstFactor: the account has no second factor
     * yet (confirming this one is then a credential change: docs/decisions/accounts.md, Second
     * factors).
     */
    async checkPendingCode (userId: string, typed: string): Promise<PendingCheck> {
      const [pending] = await db.select({ secret: mfaTotp.secret }).from(mfaTotp)
        .where(and(eq(mfaTotp.userId, userId), isNull(mfaTotp.confirmedAt)))
      if (!pending) return { status: 'none-pending' }
      const opened = sealer.open(pending.secret, userId)
      const step = opened === null ? null : matchingStep(opened.plain, normalizeCode(typed), now())
      if (step === null) return { status: 'wrong-code' }
      return { status: 'right', sealed: pending.secret, step, firstFactor: !await hasPasskey(userId) }
    },

    /**
     * Confirm the pending secret a right code was checked against (in `tx` when given, else in a
     * transaction of its own): ten new recovery codes replace any earlier ones. Null when that secret
     * is pending no more (a set-up begun again, or confirmed, meanwhile).
     */
    async confirmPending (userId: string, checked: { sealed: string, step: number }, tx?: Db): Promise<string[] | null> {
      const codes = newRecoveryCodes()
      const write = async (q: Db) => {
        const rows = await q.update(mfaTotp).set({ confirmedAt: new Date(now()), lastStep: checked.step })
          .where(and(eq(mfaTotp.userId, userId), isNull(mfaTotp.confirmedAt), eq(mfaTotp.secret, checked.sealed)))
          .returning({ userId: mfaTotp.userId })
        if (rows.length === 0) return null
        await q.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, userId))
        await q.insert(mfaRecoveryCodes).values(codes.map((c) => ({ userId, hash: hashRecoveryCode(c) })))
        return codes
      }
      const confirmed = tx ? await write(tx) : await db.transaction(write)
      if (confirmed) deps.changed(userId)
      return confirmed
    },

    /**
     * Remove the TOTP secret and the recovery codes (in `tx` when given): what was removed, a
     * confirmed secret, a pending one or none.
     */
    async removeTotp (userId: string, tx?: Db): Promise<'confirmed' | 'pending' | 'none'> {
      const remove = async (q: Db) => {
        const [row] = await q.delete(mfaTotp).where(eq(mfaTotp.userId, userId)).returning({ confirmedAt: mfaTotp.confirmedAt })
        await q.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, userId))
        return row === undefined ? 'none' : row.confirmedAt === null ? 'pending' : 'confirmed'
      }
      const removed = tx ? await remove(tx) : await db.transaction(remove)
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
