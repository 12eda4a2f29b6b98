// The reads of report_events the SSE hub makes (src/services/streams/hub.ts): a stream's backlog, the
// current state of a report, and the events a NOTIFY announces.
import { and, asc, desc, eq, gt, gte, lte, max } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { reportEvents } from '../../db/schema.ts'
import { eventsAfter, type ReportEvent } from '../reports/events.ts'

/** the reads the hub needs; a test can slow them down to interleave live events with a backlog */
export interface EventStore {
  /** events with from < seq <= to, in order */
  range: (reportId: string, from: number, to: number) => Promise<ReportEvent[]>
  after: (reportId: string, afterSeq: number) => Promise<ReportEvent[]>
  /** the latest status event and any after it (a done), in order; empty when there is none */
  current: (reportId: string) => Promise<ReportEvent[]>
  last: (reportId: string) => Promise<{ seq: number, kind: string } | null>
}

export function eventStore (db: Db): EventStore {
  const cols = { seq: reportEvents.seq, kind: reportEvents.kind, data: reportEvents.data }
  return {
    async range (reportId, from, to) {
      const rows = await db.select(cols).from(reportEvents)
        .where(and(eq(reportEvents.reportId, reportId), gt(reportEvents.seq, from), lte(reportEvents.seq, to)))
        .orderBy(asc(reportEvents.seq))
      return rows as ReportEvent[]
    },
    after: (reportId, afterSeq) => eventsAfter(db, reportId, afterSeq),
    async current (reportId) {
      const latestStatus = db.select({ seq: max(reportEvents.seq) }).from(reportEvents)
        .where(and(eq(reportEvents.reportId, reportId), eq(reportEvents.kind, 'status')))
      const rows = await db.select(cols).from(reportEvents)
        .where(and(eq(reportEvents.reportId, reportId), gte(reportEvents.seq, latestStatus)))
        .orderBy(asc(reportEvents.seq))
      return rows as ReportEvent[]
    },
    async last (reportId) {
      const [row] = await db.select({ seq: reportEvents.seq, kind: reportEvents.kind }).from(reportEvents)
        .where(eq(reportEvents.reportId, reportId)).orderBy(desc(reportEvents.seq)).limit(1)
      return row ?? null
    }
  }
}
