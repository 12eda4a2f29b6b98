// Watches and alerts in tests: the signed-in user's id, a ready report written straight into the
// reports table (the API's ownership and readiness rules apply to it as to a generated one), and
// alerts raised by the service's own recordAlerts.
import type { FastifyInstance } from 'fastify'
import type { Interest } from '../../schemas/report.ts'
import type { NewAlert, RecordedAlert } from '../../src/services/alerts/record.ts'
import { raise } from '../alerts/raise.ts'

/** the user a JWT names */
export const userIdOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')).sub as string

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

const BOXING: Interest = { id: 'i-boxing', name: 'Boxing', share: 1, relative: 1, unactive: false, category: 'Violence', source: 'ig', redCatId: 'rf-violence' }

export interface WatchOf { userId: string, watchId: string, reportId: string }

/** one alert per month for the watch: JDoe's ig profile took up boxing, a red flag */
export function alertsFor (watch: WatchOf, months: string[]): NewAlert[] {
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

/** one alert per month for the watch, raised as the alert worker raises them */
export async function raiseAlerts (app: FastifyInstance, watch: WatchOf, months: string[]): Promise<RecordedAlert[]> {
  const list = alertsFor(watch, months)
  return list.length === 0 ? [] : await raise(app, list)
}
