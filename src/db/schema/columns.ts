// What several tables share: the creation time, and the id of the transaction that wrote a row.
import { sql } from 'drizzle-orm'
import { customType, timestamp } from 'drizzle-orm/pg-core'

export const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow()

// The id of the transaction that wrote a row (a 64-bit xid8, which never wraps): a reader that keeps
// the snapshot of its last read finds exactly the rows committed since, in whatever order their
// transactions began and committed (src/db/commits.ts; docs/decisions/sessions.md, Revocation
// cursor).
const xid8 = customType<{ data: string, driverData: string }>({ dataType: () => 'xid8' })
export const writtenBy = () => xid8('txid').notNull().default(sql`pg_current_xact_id()`)
