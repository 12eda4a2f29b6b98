// Database handles for the SSE tests, over the test's one real database: a second instance's own
// connection to it, a handle that reports every statement it runs, and a handle whose report-event
// announcements wait for the test (so a generation advances one event at a time).
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { testDatabaseUrl } from '../../src/config.ts'
import { createDatabase, fromPglite, type Database, type Db } from '../../src/db/client.ts'
import * as schema from '../../src/db/schema/index.ts'
import { REPORT_EVENTS_CHANNEL } from '../../src/services/reports/events.ts'
import type { EventPublisher } from '../../src/services/events/transport.ts'
import { until } from '../peers/wait.ts'
import { serviceDatabase, serviceDatabaseEnv } from '../db-template.ts'
import type { Tap } from '../helper.ts'

/** the URL of a PostgreSQL test database itself (freshDatabase makes one per call) */
export function databaseUrl (database: Database): string {
  const url = new URL(testDatabaseUrl)
  url.pathname = `/${database.sql!.options.database}`
  return url.href
}

/** the database settings of a server process on that test database (through the pooler with TEST_POOLER_URL) */
export function databaseEnv (database: Database): Record<string, string> {
  return serviceDatabaseEnv(database.sql!.options.database)
}

/**
 * What another instance would open on the same database: its own connections (and LISTEN) on
 * PostgreSQL; on PGlite, which is one embedded connection, another handle on that same instance
 * (its LISTEN callbacks are its own, and closing an app that was handed a database leaves it open).
 */
export async function sameDatabase (t: Tap, database: Database): Promise<Database> {
  if (database.kind === 'pglite') return fromPglite(database.pglite!)
  const other = await createDatabase(serviceDatabase(database.sql!.options.database))
  t.teardown(() => other.close())
  return other
}

/** PostgreSQL: the connections to this database that LISTEN (postgres.js keeps a client's LISTENs on one) */
export async function listenConnections (database: Database): Promise<number> {
  const [{ n }] = await database.query<{ n: number }>(
    'select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike \'listen %\'')
  return n
}

/** the same database, with every statement (Drizzle's and raw) shown to onQuery first */
export function observedDatabase (database: Database, onQuery: (sql: string) => void): Database {
  const logger = { logQuery: (sql: string) => onQuery(sql) }
  const db = (database.kind === 'pglite'
    ? drizzlePglite(database.pglite!, { schema, logger })
    : drizzlePostgres(database.sql!, { schema, logger })) as unknown as Db
  return {
    ...database,
    db,
    query: async (text, params) => { onQuery(text); return await database.query(text, params) }
  }
}

/**
 * The same events transport, except that each announcement on report_events waits until the test
 * releases it, in order. A generator given it commits an event, then stops before announcing it.
 */
export function gatedAnnouncements (events: EventPublisher) {
  const waiting: Array<{ payload: string, go: () => void }> = []
  const gated: EventPublisher = {
    ...events,
    publish: async (channel, payload) => {
      if (channel === REPORT_EVENTS_CHANNEL) await new Promise<void>((go) => waiting.push({ payload, go }))
      await events.publish(channel, payload)
    }
  }
  return {
    events: gated,
    /** wait until the generator is stopped before announcing this payload ('<reportId>:<seq>') */
    async reached (payload: string) {
      await until(() => waiting[0]?.payload === payload, { timeoutMs: 30_000, what: `the announcement ${payload}` })
    },
    /** let the announcement of payload out (it must be the next one) */
    async release (payload: string) {
      await this.reached(payload)
      waiting.shift()!.go()
    }
  }
}
