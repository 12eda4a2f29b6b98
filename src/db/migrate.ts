// Applies the drizzle-kit migrations in drizzle/ on a connection of their own.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import type { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import { SOCKET_CONNECT_TIMEOUT_S, type Database } from './client.ts'
import { fromPackageRoot } from '../package-root.ts'

/** the advisory lock key migrations hold: any bigint of our own; ends with the connection */
const MIGRATION_LOCK = 7_412_310_001

/** the user and database of PGlite's one backend, as a URL for a client connecting on its socket */
export const SOCKET_URL = 'postgres://postgres@localhost/postgres'

export const migrationsFolder = fromPackageRoot('drizzle')

export async function migrateDatabase (target: { url: string } | { pglite: PGlite } | { socket: string }): Promise<void> {
  if ('pglite' in target) {
    // PGlite has one connection; migrations run on it before anything else uses it.
    await migratePglite(drizzlePglite(target.pglite), { migrationsFolder })
    return
  }
  if ('socket' in target) {
    // The embedded database through the server that owns it (src/db/embedded-socket.ts): one
    // session, which the migrations' transaction holds against everyone else. An advisory lock would
    // be the server's session's, and outlive this connection.
    const sql = postgres(SOCKET_URL, { path: target.socket, max: 1, prepare: false, connect_timeout: SOCKET_CONNECT_TIMEOUT_S, onnotice: () => {} })
    try {
      await migratePostgres(drizzlePostgres(sql), { migrationsFolder })
    } finally {
      await sql.end({ timeout: 5 })
    }
    return
  }
  // Instances started together on an unmigrated database would each run the migrations and all but
  // one fail ("relation already exists"): a session-level advisory lock on the one connection
  // (max: 1) makes the others wait, then find the work done.
  const sql = postgres(target.url, { max: 1, onnotice: () => {} })
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`
    await migratePostgres(drizzlePostgres(sql), { migrationsFolder })
  } finally {
    await sql.end({ timeout: 5 })
  }
}

let latestMigration: number | undefined

/** the timestamp of the newest migration this code ships (drizzle/meta/_journal.json), read once */
function latestShippedMigration (): number {
  if (latestMigration === undefined) {
    const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ when: number }> }
    latestMigration = Math.max(0, ...journal.entries.map((e) => e.when))
  }
  return latestMigration
}

/**
 * Whether the database has every migration this code ships, by drizzle's own rule (a migration is
 * applied when the newest row of drizzle.__drizzle_migrations is not older than it). Throws what the
 * database throws, so that a caller can tell "down" from "not migrated" (no table: 42P01).
 */
export async function migrationsApplied (database: Database): Promise<boolean> {
  const [row] = await database.query<{ last: string | number | null }>(
    'select max(created_at) as last from drizzle.__drizzle_migrations')
  return row?.last !== null && row?.last !== undefined && Number(row.last) >= latestShippedMigration()
}
