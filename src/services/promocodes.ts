// Promocodes: created by the operator (`npm run promo`), consumed atomically at sign-up.
import { and, asc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { promocodes } from '../db/schema.ts'

export interface NewPromocode { code: string, maxUses: number, expiresAt?: Date | null, credits?: number }

const usable = (code: string, now: Date) => and(
  eq(promocodes.code, code),
  lt(promocodes.uses, promocodes.maxUses),
  or(isNull(promocodes.expiresAt), gt(promocodes.expiresAt, now))
)

export function createPromocodeService (deps: { db: Db, now?: () => number }) {
  const now = () => new Date((deps.now ?? Date.now)())
  return {
    async create (p: NewPromocode) {
      const [row] = await deps.db.insert(promocodes)
        .values({ code: p.code, maxUses: p.maxUses, expiresAt: p.expiresAt ?? null, credits: p.credits ?? 1 })
        .returning()
      return row
    },

    list: () => deps.db.select().from(promocodes).orderBy(asc(promocodes.code)),

    async isUsable (code: string): Promise<boolean> {
      const rows = await deps.db.select({ code: promocodes.code }).from(promocodes).where(usable(code, now()))
      return rows.length > 0
    },

    /**
     * Takes one use of the code inside the caller's transaction; the row lock of the UPDATE makes
     * concurrent sign-ups queue, so `uses` never passes `max_uses`. Returns the credits it grants,
     * or null when the code is not usable.
     */
    async consume (tx: Db, code: string): Promise<number | null> {
      const [row] = await tx.update(promocodes)
        .set({ uses: sql`${promocodes.uses} + 1` })
        .where(usable(code, now()))
        .returning({ credits: promocodes.credits })
      return row ? row.credits : null
    }
  }
}

export type PromocodeService = ReturnType<typeof createPromocodeService>
