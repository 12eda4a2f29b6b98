// The reports deleted since the last read, from report_deletions, which the reports table's trigger
// writes in the deleting transaction (drizzle/0012). The SSE plugin reads them every
// SESSION_RECONCILE_S and ends those reports' open streams, so a lost report_deleted NOTIFY costs at
// most that long, however late its transaction committed: the read is by transaction, not by time
// (src/db/commits.ts; docs/decisions/sessions.md, Revocation cursor).
import type { Database } from '../../db/client.ts'
import { committedAfter, SNAPSHOT_SQL } from '../../db/commits.ts'

export function createDeletedReports (database: Database, retentionSeconds: number) {
  // the snapshot of the last read; none before the first
  let snapshot: string | undefined

  return {
    /**
     * The reports whose deletion committed since the last read. The first read only takes its
     * starting point (no stream is open before it) and returns none.
     */
    async read (): Promise<string[]> {
      if (snapshot === undefined) {
        const [row] = await database.query<{ snapshot: string }>(`select ${SNAPSHOT_SQL} as snapshot`)
        snapshot = row.snapshot
        return []
      }
      const [row] = await database.query<{ snapshot: string, ids: string[] | null }>(
        `select ${SNAPSHOT_SQL} as snapshot, array(select report_id::text from report_deletions where ${committedAfter('txid', '$1')}) as ids`,
        [snapshot])
      snapshot = row.snapshot
      return row.ids ?? []
    },
    /** forget deletions older than retentionSeconds; any instance may run it, any number of times */
    async prune (): Promise<void> {
      await database.query('delete from report_deletions where deleted_at < clock_timestamp() - make_interval(secs => $1)', [retentionSeconds])
    }
  }
}
