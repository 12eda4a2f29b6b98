// Reading the rows committed since a previous read: a cursor over transactions, not over time or a
// sequence (docs/decisions/sessions.md, Revocation cursor). A row records the id of the transaction
// that wrote it (an xid8 column defaulting to pg_current_xact_id()); a reader keeps the snapshot
// its previous read saw (pg_current_snapshot(), in the same statement as the read, so the two
// agree) and next asks for the rows whose transaction that snapshot did not see. A transaction that
// began before the last read and committed after it is found, however long it was open; a time
// window or a sequence number read in order misses it.

/** the snapshot of the statement it is part of, as text ('xmin:xmax:xip,...'): what the next read starts from */
export const SNAPSHOT_SQL = 'pg_current_snapshot()::text'

/**
 * SQL condition: the row's transaction (`column`, an xid8) was not visible to the snapshot in
 * `param` (text), so it committed after that snapshot was taken. The first comparison lets an index
 * on the column skip every row older than the snapshot's oldest transaction then in progress.
 */
export function committedAfter (column: string, param: string): string {
  const snapshot = `${param}::text::pg_snapshot`
  return `(${column} >= pg_snapshot_xmin(${snapshot}) and not pg_visible_in_snapshot(${column}, ${snapshot}))`
}
