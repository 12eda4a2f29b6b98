// Promo codes as staff manage them at /admin/promocodes: what `npm run promo` does, through
// ../billing/promocodes.ts, with the admin's `admin.promocode.*` audit row in the same transaction.
import type { Database } from '../../db/client.ts'
import { Conflict } from '../../errors.ts'
import { AUDIT, type AuditService, type RequestMeta } from '../accounts/audit.ts'
import { lastDayBefore, type NewPromocode, type PromocodeService } from '../billing/promocodes.ts'

export interface StaffActor { actorId: string, meta: RequestMeta, reason: string }

interface PromocodeRow { code: string, maxUses: number, uses: number, credits: number, expiresAt: Date | null, createdAt: Date }

/** a code as the admin API shows it: `expires` is the last day it works, as it was given */
export function promocodeView (r: PromocodeRow) {
  return {
    code: r.code, maxUses: r.maxUses, uses: r.uses, credits: r.credits,
    expires: r.expiresAt === null ? null : lastDayBefore(r.expiresAt),
    createdAt: r.createdAt.toISOString()
  }
}

const isUniqueViolation = (err: unknown): boolean => /duplicate key|unique/i.test(String((err as Error).cause ?? err))

export function createStaffPromocodes (deps: { database: Database, promocodes: PromocodeService, audit: AuditService }) {
  const db = deps.database.db
  return {
    async list (offset: number, limit: number) {
      const rows = await deps.promocodes.list()
      return { items: rows.slice(offset, offset + limit).map(promocodeView), total: rows.length, hasMore: offset + limit < rows.length }
    },

    /** a new code; Conflict when the code exists */
    async create (p: NewPromocode, by: StaffActor) {
      try {
        return promocodeView(await db.transaction(async (tx) => {
          const row = await deps.promocodes.create(p, tx)
          await deps.audit.recordStaffIn(tx, AUDIT.adminPromocodeCreate, {
            userId: null, actorId: by.actorId, meta: by.meta,
            details: { code: row.code, maxUses: row.maxUses, credits: row.credits, expires: row.expiresAt && lastDayBefore(row.expiresAt), reason: by.reason }
          })
          return row
        }))
      } catch (err) {
        if (isUniqueViolation(err)) throw new Conflict(`promocode ${p.code} already exists`)
        throw err
      }
    },

    /** delete a code; null when there is none */
    async remove (code: string, by: StaffActor) {
      const row = await db.transaction(async (tx) => {
        const removed = await deps.promocodes.remove(code, tx)
        if (removed) {
          await deps.audit.recordStaffIn(tx, AUDIT.adminPromocodeDelete, {
            userId: null, actorId: by.actorId, meta: by.meta, details: { code, uses: removed.uses, reason: by.reason }
          })
        }
        return removed
      })
      return row && promocodeView(row)
    }
  }
}

export type StaffPromocodes = ReturnType<typeof createStaffPromocodes>
