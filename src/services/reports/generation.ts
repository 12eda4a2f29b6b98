// Generation of one report (docs/architecture.md, A report generation), run by a queue worker: each state change and its event in
// one transaction, announced after commit. Safe to run again for the same report (a retried job).
import { createHash } from 'node:crypto'
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Database, Db } from '../../db/client.ts'
import { reports, users } from '../../db/schema/index.ts'
import { computeReport, formatMonth, reportMonth, toMonth } from '../../engine/index.ts'
import { announce, appendEvent, type ReportStage } from './events.ts'
import { loadReportInput } from './loader.ts'
import type { StoredProfile } from './index.ts'
import type { AccountChanges } from '../accounts/changes.ts'
import { recordEvent } from '../webhooks/events.ts'
import { notifyPublisher, type EventPublisher } from '../events/index.ts'

export function createReportGenerator (deps: {
  database: Database
  now?: () => number
  /** told when a refund changes a user's credits (src/services/accounts/changes.ts); a process without
   * in-memory views of accounts (the worker CLI) has none: the users row's trigger tells the others */
  accountChanges?: Pick<AccountChanges, 'changed'>
  /** seconds after an event at which each webhook delivery attempt is due (config.webhooks.retryScheduleS) */
  webhookScheduleS?: number[]
  /** where the events are announced: the process's transport (NOTIFY when not given) */
  events?: EventPublisher
}) {
  const { database } = deps
  const events = deps.events ?? notifyPublisher(database)
  const db = database.db
  const now = () => new Date((deps.now ?? Date.now)())
  const webhookScheduleS = deps.webhookScheduleS ?? [0]

  /** move a queued/generating report to the next stage; false when it is gone or finished */
  async function stage (reportId: string, name: ReportStage, progress: number): Promise<{ profiles: StoredProfile[], createdAt: Date } | null> {
    const out = await db.transaction(async (tx) => {
      const [row] = await tx.update(reports).set({ status: 'generating', stage: name, progress })
        .where(and(eq(reports.id, reportId), inArray(reports.status, ['queued', 'generating'])))
        .returning({ profiles: reports.profiles, createdAt: reports.createdAt })
      if (!row) return null
      const seq = await appendEvent(tx, reportId, 'status', { reportId, status: 'generating', progress, stage: name })
      return { row: { profiles: row.profiles as StoredProfile[], createdAt: row.createdAt }, seq }
    })
    if (!out) return null
    await announce(events, reportId, [out.seq])
    return out.row
  }

  async function finish (tx: Db, reportId: string, values: Partial<typeof reports.$inferInsert>, done: { status: 'ready' | 'failed', error?: string }, progress: number, stage: ReportStage) {
    await tx.update(reports).set(values).where(eq(reports.id, reportId))
    const s1 = await appendEvent(tx, reportId, 'status', { reportId, status: done.status, progress, stage })
    const s2 = await appendEvent(tx, reportId, 'done', { reportId, ...done })
    return [s1, s2]
  }

  return {
    async run (reportId: string): Promise<void> {
      const started = await stage(reportId, 'collecting', 10)
      if (!started) return
      const at = now()
      const loaded = await loadReportInput(database, started.profiles.map((p) => p.profileId), formatMonth(toMonth(at)))
      // the month the report covers: now's, or later when the profiles' data is (one rule with the alerts)
      const input = { ...loaded, month: formatMonth(reportMonth(at, loaded.profiles.map((p) => p.profile))) }
      if (!await stage(reportId, 'interests', 40)) return
      const results = computeReport(input)
      if (!await stage(reportId, 'friends', 70)) return
      const availableSources = results[0]?.item.friends.availableSources ?? []
      const details: Record<string, unknown> = { availableSources }
      for (const r of results) details[r.item.source] = { tree: r.tree, friends: r.friends, friendInterests: r.friendInterests, diffs: r.diffs, sourceProfile: r.sourceProfile }
      if (!await stage(reportId, 'diffs', 90)) return

      const generatedAt = now()
      const body = JSON.stringify({
        id: reportId,
        status: 'ready',
        progress: 100,
        createdAt: started.createdAt.toISOString(),
        generatedAt: generatedAt.toISOString(),
        items: results.map((r) => r.item)
      })
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
      const seqs = await db.transaction(async (tx) => {
        const [locked] = await tx.select({ status: reports.status, userId: reports.userId }).from(reports).where(eq(reports.id, reportId)).for('update')
        if (locked?.status !== 'generating') return []
        const seqs = await finish(tx, reportId, { status: 'ready', progress: 100, body, etag, details, generatedAt, creditHeld: false }, { status: 'ready' }, 100, 'diffs')
        // the owner's webhooks hear of it in this transaction: if it rolls back, nothing is sent
        await recordEvent(tx, locked.userId, 'report.ready', { reportId, generatedAt: generatedAt.toISOString() }, generatedAt, webhookScheduleS)
        return seqs
      })
      await announce(events, reportId, seqs)
    },

    /** every attempt failed: the report is failed and a held credit goes back to its owner */
    async fail (reportId: string, error = 'report generation failed'): Promise<void> {
      const { seqs, refunded } = await db.transaction(async (tx) => {
        const [row] = await tx.select({ status: reports.status, userId: reports.userId, creditHeld: reports.creditHeld, progress: reports.progress, stage: reports.stage })
          .from(reports).where(eq(reports.id, reportId)).for('update')
        if (!row || (row.status !== 'queued' && row.status !== 'generating')) return { seqs: [], refunded: null }
        if (row.creditHeld) await tx.update(users).set({ reportCredits: sql`${users.reportCredits} + 1` }).where(eq(users.id, row.userId))
        const seqs = await finish(tx, reportId, { status: 'failed', error, creditHeld: false }, { status: 'failed', error }, row.progress,
          // the stage it stopped in
          (row.stage ?? 'queued') as ReportStage)
        await recordEvent(tx, row.userId, 'report.failed', { reportId }, now(), webhookScheduleS)
        return { seqs, refunded: row.creditHeld ? row.userId : null }
      })
      if (refunded) deps.accountChanges?.changed(refunded)
      await announce(events, reportId, seqs)
    }
  }
}

export type ReportGenerator = ReturnType<typeof createReportGenerator>
