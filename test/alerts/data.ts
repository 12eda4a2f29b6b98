// Profile data for the alert tests (not a test file itself): records as a collector sends them, dated
// relative to the current month, on top of test/reports/seed.ts.
import type { Database } from '../../src/db/client.ts'
import { MONTH_START } from '../reports/seed.ts'

export const follow = (profileId: string, accountId: string, since: string, until: string | null = null) => ({ type: 'follow', profileId, accountId, since, until })

// the current month: p-1 (ig) gains Memes and a new red flag, Knives, and loses Tennis; p-4 (fb) gains
// Jazz last month and loses Memes this month
export const NEW_DATA = [
  { type: 'interest', id: 'i-knives', name: 'Knives', categoryId: 'c-sport', redFlagId: 'rf-violence' },
  { type: 'account', id: 'a-5', source: 'ig', username: 'knifeclub', fullname: 'Knife Club', image: null, interests: ['i-knives'] },
  { type: 'account', id: 'a-6', source: 'fb', username: 'jazzfb', fullname: 'Jazz FB', image: null, interests: ['i-jazz'] },
  follow('p-1', 'a-4', MONTH_START(0)),
  follow('p-1', 'a-5', MONTH_START(0)),
  follow('p-1', 'a-2', MONTH_START(3), MONTH_START(0)),
  follow('p-4', 'a-6', MONTH_START(1)),
  follow('p-4', 'a-4', MONTH_START(2), MONTH_START(0))
]

/** the alerts NEW_DATA raises for a watch of p-1 (ig) and p-4 (fb) created after the seed */
export const NEW_ALERTS = 3

export const ndjson = (records: object[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n'

export interface ReportProfile { source: string, profileId: string, username: string }
export const JDOE_BOTH: ReportProfile[] = [{ source: 'ig', profileId: 'p-1', username: 'JDoe' }, { source: 'fb', profileId: 'p-4', username: 'john.doe' }]

/** a ready report row of the user's, as generation leaves one (the API's rules apply to it as to a generated one) */
export async function readyReportRow (database: Database, userId: string, profiles: ReportProfile[] = JDOE_BOTH): Promise<string> {
  const [row] = await database.query<{ id: string }>(
    "insert into reports (user_id, status, profiles, generated_at) values ($1, 'ready', $2::jsonb, now()) returning id",
    [userId, JSON.stringify(profiles.map((p) => ({ ...p, fullname: null, image: null })))])
  return row.id
}
