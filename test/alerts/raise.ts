// Alerts for the stream and digest tests, raised as the alert worker raises them: a ready report and
// a watch on it inserted as rows, then recordAlerts in a transaction, announced on the app's events
// transport (a NOTIFY at commit, or a broker publish after it).
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { reports, users, watches } from '../../src/db/schema/index.ts'
import { recordAlerts, type NewAlert, type RecordedAlert } from '../../src/services/alerts/record.ts'
import type { Interest } from '../../schemas/report.ts'

/** the user id of a signed-in test user */
export async function userIdOf (app: FastifyInstance, email: string): Promise<string> {
  const [row] = await app.database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
  return row.id
}

export interface Watched { userId: string, reportId: string, watchId: string }

/** a ready report of the user on one ig profile, watched */
export async function watchedReport (app: FastifyInstance, userId: string, username = 'someone'): Promise<Watched> {
  const db = app.database.db
  const [report] = await db.insert(reports).values({
    userId, status: 'ready', progress: 100, profiles: [{ source: 'ig', profileId: `ig-${username}`, username, fullname: username, image: null }]
  }).returning({ id: reports.id })
  const [watch] = await db.insert(watches).values({ userId, reportId: report.id }).returning({ id: watches.id })
  return { userId, reportId: report.id, watchId: watch.id }
}

export const interest = (id: string, redCatId?: string): Interest =>
  ({ id, name: `Interest ${id}`, share: 0.1, relative: 0.5, unactive: false, source: 'ig', ...(redCatId ? { redCatId, category: 'Red flag' } : {}) })

/** one month's change of a watched report's profile; redFlags: that many of its new interests are red flags */
export function change (w: Watched, month: string, redFlags = 0): NewAlert {
  const flagged = Array.from({ length: redFlags }, (_, i) => interest(`red-${month}-${i}`, 'rf1'))
  return {
    userId: w.userId, watchId: w.watchId, reportId: w.reportId, source: 'ig', profileId: 'ig-someone', username: 'someone', month,
    new: [interest(`new-${month}`), ...flagged], lost: [interest(`lost-${month}`)], newRedFlags: flagged
  }
}

/** raise these alerts in one transaction, as the alert worker does */
export async function raise (app: FastifyInstance, list: NewAlert[]): Promise<RecordedAlert[]> {
  let afterCommit = async (): Promise<void> => {}
  const raised = await app.database.db.transaction(async (tx) => await recordAlerts(tx, list, new Date(), [0], async (tx, channel, payloads) => {
    afterCommit = await app.events.staged(tx, channel, payloads)
  }))
  await afterCommit()
  return raised
}
