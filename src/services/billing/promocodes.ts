// Promocodes: created by the operator (`npm run promo`), consumed atomically at sign-up, or redeemed
// later by a signed-in account (POST /billing/promocode), once per account.
import { and, asc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { promocodes, userPromocodes, users } from '../../db/schema/index.ts'
import { PromocodeRefused } from '../../errors.ts'

export interface NewPromocode { code: string, maxUses: number, expiresAt?: Date | null, credits?: number }

/** what a code may be made of (the command's CODE, the admin API's `code`) */
export const PROMOCODE_PATTERN = '^[\\w-]{1,64}$'

const DAY_MS = 24 * 3600 * 1000
/** a code given the last day it works (YYYY-MM-DD) expires at the first instant after that day (UTC); null for no such day */
export function expiryAfter (day: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day))) return null
  return new Date(Date.parse(day) + DAY_MS)
}
/** the last day a code works, as it was given (YYYY-MM-DD) */
export const lastDayBefore = (expiresAt: Date): string => new Date(expiresAt.getTime() - 1).toISOString().slice(0, 10)

const usable = (code: string, now: Date) => and(
  eq(promocodes.code, code),
  lt(promocodes.uses, promocodes.maxUses),
  or(isNull(promocodes.expiresAt), gt(promocodes.expiresAt, now))
)

export function createPromocodeService (deps: { db: Db, now?: () => number }) {
  const now = () => new Date((deps.now ?? Date.now)())

  /**
   * Takes one use of the code inside the caller's transaction; the row lock of the UPDATE makes
   * concurrent sign-ups queue, so `uses` never passes `max_uses`. Returns the credits it grants,
   * or null when the code is not usable.
   */
  async function consume (tx: Db, code: string): Promise<number | null> {
    const [row] = await tx.update(promocodes)
      .set({ uses: sql`${promocodes.uses} + 1` })
      .where(usable(code, now()))
      .returning({ credits: promocodes.credits })
    return row ? row.credits : null
  }

  return {
    /** a new code, in the transaction `tx` when given (the admin API's audit row goes with it) */
    async create (p: NewPromocode, tx: Db = deps.db) {
      const [row] = await tx.insert(promocodes)
        .values({ code: p.code, maxUses: p.maxUses, expiresAt: p.expiresAt ?? null, credits: p.credits ?? 1 })
        .returning()
      return row
    },

    list: () => deps.db.select().from(promocodes).orderBy(asc(promocodes.code)),

    /**
     * Delete a code (in `tx` when given): it is refused from then on. What it already gave stays, and
     * so do the rows of the accounts that redeemed it. The row as it was, or null when unknown.
     */
    async remove (code: string, tx: Db = deps.db) {
      const [row] = await tx.delete(promocodes).where(eq(promocodes.code, code)).returning()
      return row ?? null
    },

    async isUsable (code: string): Promise<boolean> {
      const rows = await deps.db.select({ code: promocodes.code }).from(promocodes).where(usable(code, now()))
      return rows.length > 0
    },

    consume,

    /**
     * An existing account redeems a code: its credits are added once per account. The code given at
     * sign-up counts as redeemed by that account. The account's redemption row, the code's use and
     * the credit are one transaction: a second submit (even a concurrent one, which waits on the
     * first's row of user_promocodes) finds the row and adds nothing, and a code that turns out
     * unusable rolls the row back. Returns the credits added, or null when the code is not usable
     * by this account (unknown, expired, used up, already redeemed: one answer for all).
     */
    async redeem (userId: string, code: string): Promise<number | null> {
      try {
        return await deps.db.transaction(async (tx) => {
          const [mine] = await tx.insert(userPromocodes).values({ userId, code }).onConflictDoNothing()
            .returning({ code: userPromocodes.code })
          if (!mine) throw new PromocodeRefused()
          const [user] = await tx.select({ promocode: users.promocode }).from(users).where(eq(users.id, userId))
          if (!user || user.promocode === code) throw new PromocodeRefused()
          const credits = await consume(tx, code)
          if (credits === null) throw new PromocodeRefused()
          await tx.update(users).set({ reportCredits: sql`${users.reportCredits} + ${credits}` }).where(eq(users.id, userId))
          return credits
        })
      } catch (err) {
        if (err instanceof PromocodeRefused) return null
        throw err
      }
    }
  }
}

export type PromocodeService = ReturnType<typeof createPromocodeService>
