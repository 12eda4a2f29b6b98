// The reads of report_events the SSE hub makes (hub.ts): what a new stream is sent before its live
// events (its backlog), the current state of a report, and the events a NOTIFY announces.
import { and, asc, desc, eq, gt, gte, lte, max } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { reportEvents } from '../../db/schema/index.ts'
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

/**
 * What a new stream is sent before its live events. Nothing (noContent) when the report is over and
 * the client has its last event; the events after its Last-Event-ID when there are some; and for a
 * new client, or an id this report never had, the current state (`current`: the stream starts over,
 * and `restart` is told so before the state is read).
 */
export type Backlog = { noContent: true } | { noContent: false, current: boolean, first: ReportEvent[] }

export async function backlogOf (store: EventStore, reportId: string, lastEventId: number | undefined, restart: () => void): Promise<Backlog> {
  if (lastEventId !== undefined) {
    const first = await store.after(reportId, lastEventId)
    if (first.length > 0) return { noContent: false, current: false, first }
    const last = await store.last(reportId)
    if (last && last.seq === lastEventId && last.kind === 'done') return { noContent: true }
    // the client has the report's last event (or a later one is being written): it waits for the next
    if (last && last.seq >= lastEventId) return { noContent: false, current: false, first }
  }
  restart()
  return { noContent: false, current: true, first: await store.current(reportId) }
}
