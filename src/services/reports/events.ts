// Report events (docs/architecture.md, An event from ingest to stream): rows of report_events with seq 1, 2, 3 … per report, written in the
// transaction of the state change they describe, announced after commit on report_events as
// '<reportId>:<seq>' (NOTIFY, or the report's broker channel: src/services/events/).
import { and, eq, gt, asc, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import type { EventPublisher } from '../events/transport.ts'
import { reportEvents } from '../../db/schema/index.ts'

export const REPORT_EVENTS_CHANNEL = 'report_events'

export type ReportStage = 'queued' | 'collecting' | 'interests' | 'friends' | 'diffs'

export interface StatusEventData { reportId: string, status: string, progress: number, stage: ReportStage | null }
export interface DoneEventData { reportId: string, status: 'ready' | 'failed', error?: string }

export type ReportEvent =
  | { seq: number, kind: 'status', data: StatusEventData }
  | { seq: number, kind: 'done', data: DoneEventData }

/** append an event inside the caller's transaction; the caller holds the report's row lock */
export async function appendEvent (tx: Db, reportId: string, kind: ReportEvent['kind'], data: StatusEventData | DoneEventData): Promise<number> {
  const [row] = await tx.insert(reportEvents).values({
    reportId,
    seq: sql`(select coalesce(max(seq), 0) + 1 from report_events where report_id = ${reportId})`,
    kind,
    data
  }).returning({ seq: reportEvents.seq })
  return row.seq
}

export async function announce (events: Pick<EventPublisher, 'publish'>, reportId: string, seqs: number[]): Promise<void> {
  for (const seq of seqs) await events.publish(REPORT_EVENTS_CHANNEL, `${reportId}:${seq}`)
}

export async function eventsAfter (db: Db, reportId: string, afterSeq: number): Promise<ReportEvent[]> {
  const rows = await db.select({ seq: reportEvents.seq, kind: reportEvents.kind, data: reportEvents.data })
    .from(reportEvents)
    .where(and(eq(reportEvents.reportId, reportId), gt(reportEvents.seq, afterSeq)))
    .orderBy(asc(reportEvents.seq))
  return rows as ReportEvent[]
}
