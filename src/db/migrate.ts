// Applies the drizzle-kit migrations in drizzle/ on a connection of their own.
import { fileURLToPath } from 'node:url'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import type { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'

export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url))

export async function migrateDatabase (target: { url: string } | { pglite: PGlite }): Promise<void> {
  if ('pglite' in target) {
    // PGlite has one connection; migrations run on it before anything else uses it.
    await migratePglite(drizzlePglite(target.pglite), { migrationsFolder })
    return
  }
  const sql = postgres(target.url, { max: 1, onnotice: () => {} })
  try {
    await migratePostgres(drizzlePostgres(sql), { migrationsFolder })
  } finally {
    await sql.end({ timeout: 5 })
  }
}
