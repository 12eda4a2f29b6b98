// Watches and alerts in tests: the signed-in user's id, a ready report written straight into the
// reports table (the API's ownership and readiness rules apply to it as to a generated one), and
// alerts raised as the alert worker raises them: recordAlerts in a transaction, announced on the app's
// events transport (a NOTIFY at commit, or a broker publish after it).
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import type { Interest } from '../../schemas/report.ts'
import { reports, users, watches } from '../../src/db/schema/index.ts'
import { recordAlerts, type NewAlert, type RecordedAlert } from '../../src/services/alerts/record.ts'

/** the user a JWT names */
export const userIdOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')).sub as string

/** the user id of a signed-in test user, by address */
export async function userIdByEmail (app: FastifyInstance, email: string): Promise<string> {
  const [row] = await app.database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
  return row.id
}

export interface StoredProfile { source: string, profileId: string, username: string }

const JDOE: StoredProfile[] = [{ source: 'ig', profileId: 'p-1', username: 'JDoe' }]

/** a report row of the user's in this state (ready by default), generated at `generatedAt` */
export async function reportRow (app: FastifyInstance, userId: string, opts: { status?: string, profiles?: StoredProfile[], generatedAt?: Date } = {}): Promise<string> {
  const status = opts.status ?? 'ready'
  const profiles = (opts.profiles ?? JDOE).map((p) => ({ ...p, fullname: null, image: null }))
  const generatedAt = status === 'ready' ? (opts.generatedAt ?? new Date()) : null
  const [row] = await app.database.query<{ id: string }>(
    'insert into reports (user_id, status, profiles, generated_at) values ($1, $2, $3::jsonb, $4) returning id',
    [userId, status, JSON.stringify(profiles), generatedAt?.toISOString() ?? null])
  return row.id
}

/** an active subscription for the user, as the billing webhook stores one */
export async function subscribe (app: FastifyInstance, userId: string): Promise<void> {
  await app.database.query("insert into subscriptions (stripe_subscription_id, user_id, status, event_created) values ($1, $2, 'active', 1)",
    [`sub_watch_${userId}`, userId])
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

const BOXING: Interest = { id: 'i-boxing', name: 'Boxing', share: 1, relative: 1, unactive: false, category: 'Violence', source: 'ig', redCatId: 'rf-violence' }

/** one alert per month for the watch: JDoe's ig profile took up boxing, a red flag */
export function alertsFor (watch: Watched, months: string[]): NewAlert[] {
  return months.map((month) => ({
    ...watch,
    source: 'ig',
    profileId: 'p-1',
    username: 'JDoe',
    month,
    new: [BOXING],
    lost: [],
    newRedFlags: [BOXING]
  }))
}

/** raise these alerts in one transaction, as the alert worker does; `at`: their creation time */
export async function raise (app: FastifyInstance, list: NewAlert[], at = new Date()): Promise<RecordedAlert[]> {
  let afterCommit = async (): Promise<void> => {}
  const raised = await app.database.db.transaction(async (tx) => await recordAlerts(tx, list, at, [0], async (tx, channel, payloads) => {
    afterCommit = await app.events.staged(tx, channel, payloads)
  }))
  await afterCommit()
  return raised
}

/** one alert per month for the watch, raised as the alert worker raises them */
export async function raiseAlerts (app: FastifyInstance, watch: Watched, months: string[]): Promise<RecordedAlert[]> {
  const list = alertsFor(watch, months)
  return list.length === 0 ? [] : await raise(app, list)
}
