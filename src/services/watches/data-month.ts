// A profile's data month: the latest month any of its follows names (`since`, or `until`, which ends
// a follow in that month). A watch records it per source when created, and a later one is what raises
// alerts (docs/decisions/watches-and-alerts.md, Watches and alerts).
import { inArray, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { follows } from '../../db/schema/index.ts'
import { parseMonth } from '../../engine/index.ts'

/** each profile's data month as the engine counts months (year * 12 + month - 1); a profile without follows is absent */
export async function dataMonths (db: Db, profileIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  if (profileIds.length === 0) return out
  const rows = await db.select({
    profileId: follows.profileId,
    last: sql<string>`max(greatest(${follows.since}, coalesce(${follows.until}, ${follows.since})))::text`
  }).from(follows).where(inArray(follows.profileId, [...profileIds])).groupBy(follows.profileId)
  for (const r of rows) out.set(r.profileId, parseMonth(r.last))
  return out
}
