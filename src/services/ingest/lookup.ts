// Which referenced ids the database already holds, asked in batches so that a large file makes a
// handful of queries, not one per line.
import type { Database } from '../../db/client.ts'

const BATCH = 1000
export type ProfileTable = 'categories' | 'red_flags' | 'interests' | 'accounts' | 'profiles'

function * batches<T> (items: Iterable<T>, size = BATCH): Generator<T[]> {
  let batch: T[] = []
  for (const item of items) {
    batch.push(item)
    if (batch.length === size) {
      yield batch
      batch = []
    }
  }
  if (batch.length) yield batch
}

/** the subset of ids that exist in table */
export async function existingIds (database: Database, table: ProfileTable, ids: Iterable<string>): Promise<Set<string>> {
  const found = new Set<string>()
  for (const batch of batches(ids)) {
    const rows = await database.query<{ id: string }>(`select id from ${table} where id = any($1::text[])`, [batch])
    for (const r of rows) found.add(r.id)
  }
  return found
}

export interface ProfileName { id: string, source: string, username: string }

/** profiles of the file whose source + username (case-insensitive) belongs to another profile id in the database */
export async function takenProfileNames (database: Database, profiles: Iterable<ProfileName>): Promise<Map<string, string>> {
  const taken = new Map<string, string>()
  for (const batch of batches(profiles)) {
    const rows = await database.query<{ file_id: string, db_id: string }>(
      `select x.id as file_id, p.id as db_id
         from unnest($1::text[], $2::text[], $3::text[]) as x(id, source, username)
         join profiles p on p.source = x.source and lower(p.username) = lower(x.username)
        where p.id <> x.id`,
      [batch.map((p) => p.id), batch.map((p) => p.source), batch.map((p) => p.username)])
    for (const r of rows) taken.set(r.file_id, r.db_id)
  }
  return taken
}
