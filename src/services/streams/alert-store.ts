// The reads of the alerts table the alert hub makes (alert-hub.ts): a user's alerts after a seq, in
// seq order, and the user's last seq (where a stream without Last-Event-ID starts).
import { and, asc, eq, gt, max } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { alerts } from '../../db/schema/index.ts'
import { toAlert } from '../alerts/record.ts'
import type { Alert } from '../../../schemas/alerts.ts'

/** one alert as the stream sends it: `id: <seq>`, `event: alert`, `data: <alert>` */
export interface AlertEvent { seq: number, alert: Alert }

/** the reads the alert hub needs; a test can slow them down to interleave live alerts with a backlog */
export interface AlertStore {
  /** the user's alerts with seq > afterSeq, in seq order */
  after: (userId: string, afterSeq: number) => Promise<AlertEvent[]>
  /** the user's highest seq; 0 when the user has no alert */
  last: (userId: string) => Promise<number>
}

export function alertStore (db: Db): AlertStore {
  return {
    async after (userId, afterSeq) {
      const rows = await db.select().from(alerts)
        .where(and(eq(alerts.userId, userId), gt(alerts.seq, afterSeq)))
        .orderBy(asc(alerts.seq))
      return rows.map((row) => ({ seq: row.seq, alert: toAlert(row) }))
    },
    async last (userId) {
      const [row] = await db.select({ seq: max(alerts.seq) }).from(alerts).where(eq(alerts.userId, userId))
      return Number(row?.seq ?? 0)
    }
  }
}
