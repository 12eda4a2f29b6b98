// Instances that start together on an unmigrated PostgreSQL database each run the migrations; they
// must all succeed and apply each migration once. (PGlite is embedded in one process: no race.)
import t from '../tap.ts'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createDatabase } from '../../src/db/client.ts'
import { migrateDatabase, migrationsApplied, migrationsFolder } from '../../src/db/migrate.ts'
import { onPostgres } from '../helper.ts'
import { childDatabase } from './support.ts'

const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }

t.test('four instances migrating one new database at once: all succeed, each migration applied once', { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): the race is between processes sharing one server' }, async (t) => {
  const { url } = await childDatabase(t)
  const results = await Promise.allSettled([1, 2, 3, 4].map(() => migrateDatabase({ url })))
  t.same(results.map((r) => r.status === 'rejected' ? String(r.reason).slice(0, 200) : r.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'])
  const database = await createDatabase({ url })
  t.teardown(() => database.close())
  const [row] = await database.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations')
  t.equal(row.n, journal.entries.length, 'one row per migration')
  t.ok(await migrationsApplied(database), 'the schema is current')
})
