// Alerts written in the transaction that raises them (docs/decisions/watches-and-alerts.md, Watches
// and alerts): each user's alerts numbered from alert_sequences (the row locked, so a user's alerts
// commit in seq order), inserted once per (watch, source, month), their watch.alert webhook
// deliveries written beside them, and alerts '<userId>:<last seq>' announced by the same
// transaction: a NOTIFY sent by it (PostgreSQL delivers it at commit, and never if it rolls back),
// or, with a broker, published after its commit by the caller (src/services/events/).
import { and, arrayContains, inArray, isNull, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { alerts, alertSequences, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts'
import type { Alert } from '../../../schemas/alerts.ts'
import type { Interest } from '../../../schemas/report.ts'
import type { Source } from '../../../schemas/common.ts'
import { eventBody, firstAttemptAt } from '../webhooks/events.ts'

export const ALERTS_CHANNEL = 'alerts'

// rows per INSERT: 14 parameters a row stays far below PostgreSQL's 65,535 per statement
const INSERT_ROWS = 1000

export interface NewAlert {
  userId: string
  watchId: string
  reportId: string
  source: Source
  profileId: string
  username: string
  /** YYYY-MM */
  month: string
  new: Interest[]
  lost: Interest[]
  newRedFlags: Interest[]
}

/** an alert as raised: the API's shape, its owner and its place in the owner's sequence */
export interface RecordedAlert { userId: string, seq: number, alert: Alert }

type AlertRow = typeof alerts.$inferSelect

export function toAlert (row: Pick<AlertRow, 'id' | 'reportId' | 'source' | 'username' | 'month' | 'new' | 'lost' | 'newRedFlags' | 'createdAt' | 'readAt'>): Alert {
  return {
    id: row.id,
    reportId: row.reportId,
    source: row.source as Source,
    username: row.username,
    month: row.month,
    new: row.new as Interest[],
    lost: row.lost as Interest[],
    newRedFlags: row.newRedFlags as Interest[],
    createdAt: row.createdAt.toISOString(),
    read: row.readAt !== null
  }
}

/**
 * Raise `list` in the caller's transaction. An alert whose (watch, source, month) was raised before
 * is skipped (it leaves a gap in its user's seq, which costs nothing). Returns the alerts inserted.
 * `announce` stages the announcements in the transaction (the caller's events transport,
 * EventPublisher.staged); without it they are a NOTIFY of this transaction.
 */
export async function recordAlerts (tx: Db, list: readonly NewAlert[], at: Date, webhookScheduleS: number[],
  announce: (tx: Db, channel: string, payloads: string[]) => Promise<unknown> = inTransaction): Promise<RecordedAlert[]> {
  if (list.length === 0) return []
  const perUser = new Map<string, number>()
  for (const a of list) perUser.set(a.userId, (perUser.get(a.userId) ?? 0) + 1)
  // in user-id order, so two transactions numbering the same users lock their rows in the same order
  const users = [...perUser.keys()].sort()
  // the seqs reserved for a user are (last - n, last]; handed out below in the order of `list`
  const next = new Map<string, number>()
  for (let i = 0; i < users.length; i += INSERT_ROWS) {
    const reserved = await tx.insert(alertSequences)
      .values(users.slice(i, i + INSERT_ROWS).map((userId) => ({ userId, seq: perUser.get(userId)! })))
      .onConflictDoUpdate({ target: alertSequences.userId, set: { seq: sql`${alertSequences.seq} + excluded.seq` } })
      .returning()
    for (const r of reserved) next.set(r.userId, r.seq - perUser.get(r.userId)! + 1)
  }

  const inserted: AlertRow[] = []
  for (let i = 0; i < list.length; i += INSERT_ROWS) {
    const values = list.slice(i, i + INSERT_ROWS).map((a) => {
      const seq = next.get(a.userId)!
      next.set(a.userId, seq + 1)
      return { ...a, seq, createdAt: at }
    })
    inserted.push(...await tx.insert(alerts).values(values)
      .onConflictDoNothing({ target: [alerts.watchId, alerts.source, alerts.month] }).returning())
  }
  if (inserted.length === 0) return []
  const recorded = inserted.map((row) => ({ userId: row.userId, seq: row.seq, alert: toAlert(row) }))
  await recordWebhooks(tx, recorded, at, webhookScheduleS)

  const last = new Map<string, number>()
  for (const r of recorded) last.set(r.userId, Math.max(last.get(r.userId) ?? 0, r.seq))
  const payloads = [...last].map(([userId, seq]) => `${userId}:${seq}`)
  await announce(tx, ALERTS_CHANNEL, payloads)
  return recorded
}

/** NOTIFY in the transaction: delivered at its commit */
async function inTransaction (tx: Db, channel: string, payloads: string[]): Promise<void> {
  // sql.param: a bare array in drizzle's sql`` is spread into a list of parameters, not sent as one array
  await tx.execute(sql`select pg_notify(${channel}, p) from unnest(${sql.param(payloads)}::text[]) as p`)
}

/** one watch.alert delivery per alert per enabled endpoint of its user subscribed to the event */
async function recordWebhooks (tx: Db, recorded: readonly RecordedAlert[], at: Date, scheduleS: number[]): Promise<void> {
  const userIds = [...new Set(recorded.map((r) => r.userId))]
  const endpoints = await tx.select({ id: webhookEndpoints.id, userId: webhookEndpoints.userId }).from(webhookEndpoints)
    .where(and(inArray(webhookEndpoints.userId, userIds), isNull(webhookEndpoints.disabledAt), arrayContains(webhookEndpoints.events, ['watch.alert'])))
  if (endpoints.length === 0) return
  const rows = []
  for (const r of recorded) {
    for (const e of endpoints) {
      if (e.userId === r.userId) rows.push({ endpointId: e.id, type: 'watch.alert', body: eventBody('watch.alert', r.alert, at), nextAttemptAt: firstAttemptAt(scheduleS) })
    }
  }
  for (let i = 0; i < rows.length; i += INSERT_ROWS) await tx.insert(webhookDeliveries).values(rows.slice(i, i + INSERT_ROWS))
}
