// The migrated templates test databases are copied from, for test/helper.ts and for the databases of
// child processes (test/foundation/support.ts). Kept apart from the helper, which loads the whole app.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type postgres from 'postgres'
import { testDatabaseUrl, testPoolerUrl } from '../src/config.ts'
import { fromPglite, fromPostgres, type Database } from '../src/db/client.ts'
import { migrateDatabase, migrationsFolder } from '../src/db/migrate.ts'
import { openPglite } from '../src/db/pglite.ts'
import { prepareQueue } from '../src/jobs/queue.ts'

// Every test database starts as a copy of one migrated template, made once per machine and set of
// migrations (the name carries a hash of drizzle/, of the PGlite build and of pg-boss's version), not
// migrated per test. The template is the database as the release step leaves it (npm run db:migrate
// on PostgreSQL): migrated, with the job queue's schema and queues, which every app a test builds
// would otherwise install again (pg-boss's schema is most of what a test's app does to its database
// as it starts).
// - PGlite: a migrated data directory in memory (/dev/shm); each database is a new PGlite on a
//   copy of it (no initdb, no migrations; a copied directory starts in half the CPU time of a
//   loaded tar dump).
// - PostgreSQL: a database pir_template_<hash>; each test database is CREATE DATABASE ... TEMPLATE it.
// The first process that needs a template makes it under another name and renames it when it is
// complete (PostgreSQL: under an advisory lock), so no test sees a half-made one.
const TEMPLATE_LOCK = 7_412_310_002

let key: string | undefined
function templateKey (): string {
  if (key === undefined) {
    const hash = createHash('sha256')
    const files = (readdirSync(migrationsFolder, { recursive: true }) as string[]).sort()
    for (const f of files) {
      const path = join(migrationsFolder, f)
      if (statSync(path).isFile()) hash.update(f).update(readFileSync(path))
    }
    const wasm = fileURLToPath(import.meta.resolve('@electric-sql/pglite/pglite.wasm'))
    hash.update(`${wasm} ${statSync(wasm).size}`)
    hash.update(readFileSync(fileURLToPath(import.meta.resolve('pg-boss/package.json'))))
    key = hash.digest('hex').slice(0, 16)
  }
  return key
}

/** where PGlite data directories go: memory (/dev/shm) where there is one, else the temp directory */
export const scratch = existsSync('/dev/shm') ? '/dev/shm' : tmpdir()

let pgliteTemplate: Promise<string> | undefined

/** the migrated PGlite data directory every embedded test database is a copy of (copy it; never open it) */
export function pgliteTemplateDir (): Promise<string> {
  pgliteTemplate ??= (async () => {
    const dir = join(scratch, `pir-test-template-${templateKey()}`)
    if (existsSync(dir)) return dir
    const building = `${dir}.${process.pid}`
    rmSync(building, { recursive: true, force: true })
    const pg = await openPglite(building)
    await migrateDatabase({ pglite: pg })
    await withQueue(fromPglite(pg))
    try {
      renameSync(building, dir)
    } catch (err) {
      // another process finished first: its copy is as good
      if (!existsSync(dir)) throw err
      rmSync(building, { recursive: true, force: true })
    }
    return dir
  })()
  return pgliteTemplate
}

/** the job queue's schema and queues, made as the release step makes them; then `database` is closed */
async function withQueue (database: Database): Promise<void> {
  try {
    await prepareQueue(database, { warn: (o, m) => console.error(m, JSON.stringify(o)) })
  } finally {
    await database.close()
  }
}

/** retried while PostgreSQL says another session is still on the database (55006): a closed connection's backend ends a moment later */
async function whileInUse<T> (statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement()
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || attempt >= 100) throw err
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}

/** TEST_DATABASE_URL with another database name: the database itself */
export function databaseUrl (name: string): string {
  const url = new URL(testDatabaseUrl)
  url.pathname = `/${name}`
  return url.href
}

/** how the service opens a test database: DATABASE_URL, DATABASE_DIRECT_URL and DATABASE_PREPARE */
export interface ServiceDatabase { url: string, directUrl: string, prepare: boolean }

/**
 * The service's way to test database `name`: with TEST_POOLER_URL, as it runs behind PgBouncer in
 * transaction mode (docs/operations.md, Behind PgBouncer): its pool through the pooler (which
 * reaches every database of the server by name), its LISTEN and migrations on the database itself,
 * and no prepared statements (the Debian pooler keeps none across transactions). Else directly.
 */
export function serviceDatabase (name: string): ServiceDatabase {
  const direct = databaseUrl(name)
  if (!testPoolerUrl) return { url: direct, directUrl: direct, prepare: true }
  const pooled = new URL(testPoolerUrl)
  pooled.pathname = `/${name}`
  return { url: pooled.href, directUrl: direct, prepare: false }
}

/** the same as a server process's environment */
export function serviceDatabaseEnv (name: string): Record<string, string> {
  const s = serviceDatabase(name)
  return { DATABASE_URL: s.url, DATABASE_DIRECT_URL: s.directUrl, DATABASE_PREPARE: s.prepare ? 'on' : 'off' }
}

let postgresTemplate: Promise<string> | undefined

/** the name of the migrated template database on TEST_DATABASE_URL's server */
function postgresTemplateName (admin: postgres.Sql): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `pir_template_${templateKey()}`
    const lock = await admin.reserve()
    try {
      await lock`select pg_advisory_lock(${TEMPLATE_LOCK})`
      const [found] = await lock`select 1 from pg_database where datname = ${name}`
      if (!found) {
        const building = `${name}_${process.pid}`
        await lock.unsafe(`drop database if exists ${building} with (force)`)
        await lock.unsafe(`create database ${building}`)
        await migrateDatabase({ url: databaseUrl(building) })
        await withQueue(fromPostgres(databaseUrl(building), 1))
        await whileInUse(() => lock.unsafe(`alter database ${building} rename to ${name}`))
      }
    } finally {
      await lock`select pg_advisory_unlock(${TEMPLATE_LOCK})`.catch(() => {})
      lock.release()
    }
    return name
  })()
  return postgresTemplate
}

/** CREATE DATABASE `name` on TEST_DATABASE_URL's server as a copy of the migrated template */
export async function createFromTemplate (admin: postgres.Sql, name: string): Promise<void> {
  const template = await postgresTemplateName(admin)
  await whileInUse(() => admin.unsafe(`create database ${name} template ${template}`))
}
