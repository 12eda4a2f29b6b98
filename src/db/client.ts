// One factory, two drivers: postgres.js against a real PostgreSQL, or embedded PGlite.
// Both run the same migrations and the same Drizzle queries.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type PGlite } from '@electric-sql/pglite'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import postgres from 'postgres'
import * as schema from './schema/index.ts'
import { preparingClient } from './prepared-statements.ts'
import { createPoolUsage, type PoolUsage } from './pool-usage.ts'
import { openPglite } from './pglite.ts'

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>

// What the service needs beyond Drizzle: raw SQL (pg-boss, COPY-free bulk work), LISTEN/NOTIFY, close.
export interface Database {
  db: Db
  kind: 'postgres' | 'pglite'
  /** run a parameterised statement and get its rows */
  query: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>
  /** run several statements without parameters */
  exec: (text: string) => Promise<void>
  listen: (channel: string, onMessage: (payload: string) => void, onListen?: () => void) => Promise<() => Promise<void>>
  notify: (channel: string, payload: string) => Promise<void>
  close: () => Promise<void>
  /** the underlying PGlite instance, when embedded (tests clone it) */
  pglite?: PGlite
  /** the underlying postgres.js client, when on PostgreSQL */
  sql?: postgres.Sql
  /** PostgreSQL: this process's transactions and statements waiting on the pool (src/db/pool-usage.ts) */
  usage?: PoolUsage
}

export interface DatabaseOptions {
  url?: string
  dataDir?: string
  pglite?: PGlite
  max?: number
  /** PostgreSQL: prepare statements with parameters, once per connection (DATABASE_PREPARE; default true) */
  prepare?: boolean
  /** PostgreSQL behind a pooler: the database itself, where LISTEN connects (DATABASE_DIRECT_URL) */
  directUrl?: string
}

export function fromPglite (pg: PGlite): Database {
  const db = drizzlePglite(pg, { schema }) as unknown as Db
  return {
    db,
    kind: 'pglite',
    pglite: pg,
    query: async (text, params) => (await pg.query(text, params as unknown[])).rows as never,
    exec: async (text) => { await pg.exec(text) },
    listen: async (channel, onMessage, onListen) => {
      const unsub = await pg.listen(channel, onMessage)
      onListen?.()
      return unsub
    },
    notify: async (channel, payload) => { await pg.query('select pg_notify($1, $2)', [channel, payload]) },
    close: async () => { if (!pg.closed) await pg.close() }
  }
}

// node-postgres (and so pg-boss) sends a plain object as JSON and undefined as NULL; postgres.js
// would throw on either, outside any promise, so they are converted here.
function jsonParam (v: unknown): unknown {
  if (v === undefined) return null
  return v !== null && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v) && !Buffer.isBuffer(v) ? JSON.stringify(v) : v
}

/**
 * Seconds a connection waits before its next connect attempt after a failed one. postgres.js's own
 * backoff grows to 10-20 s after a few failures, and a query that needs a connection waits it out:
 * after an outage of a few seconds, requests would hang and the service (the LISTEN connection
 * included) would come back only that long after the database. Capped at half a second, jittered so
 * that instances do not reconnect in step.
 */
function reconnectDelay (retries: number): number {
  return Math.min(0.05 * 2 ** retries, 0.5) * (0.5 + Math.random() / 2)
}

// postgres.js, PGlite and the OS say "the database is not there" in different words.
const DB_DOWN_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  '57P01', '57P02', '57P03', '53300', '08000', '08003', '08006', '08001', '08004'
])

/** the error says the database could not be reached (as opposed to refusing a statement) */
export function isDatabaseDown (err: unknown): boolean {
  for (let e = err as { code?: string, cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && DB_DOWN_CODES.has(e.code)) return true
    if (e instanceof Error && /PGlite is closed/i.test(e.message)) return true
  }
  return false
}

/**
 * Seconds a command's connection to the embedded database a server serves on its socket may wait
 * to be let in: the server lets it in between its own transactions, and the longest of those, the
 * demo import at a first start, takes tens of seconds.
 */
export const SOCKET_CONNECT_TIMEOUT_S = 90

/**
 * `socket`: a Unix socket to connect to instead of the URL's host (the embedded database a server
 * serves). `directUrl`: the database itself when `url` is a pooler in transaction mode, which cannot
 * keep a LISTEN (a session's state) on one server connection: the LISTEN connection goes there.
 */
export function fromPostgres (url: string, max = 10, prepare = true, socket?: string, directUrl?: string): Database {
  const pooled = Boolean(directUrl && directUrl !== url)
  const options = {
    ...(socket ? { path: socket } : {}),
    max,
    prepare,
    onnotice: () => {},
    // a dead server must surface as an error quickly, not as a hung request: an unreachable host
    // gives up after 3 s (+ at most the reconnect delay), inside the 5 s a request may wait
    connect_timeout: socket ? SOCKET_CONNECT_TIMEOUT_S : 3,
    idle_timeout: 60,
    backoff: reconnectDelay
  }
  // behind a pooler, no more work handed to postgres.js than the pool has connections (src/db/pool-usage.ts)
  const usage = createPoolUsage(pooled ? max : undefined)
  const sql = preparingClient(postgres(url, options), prepare, usage)
  // postgres.js opens its LISTEN connection from the client it is asked of; this one opens nothing else
  const listener = pooled ? postgres(directUrl!, options) : sql
  const db = drizzlePostgres(sql, { schema }) as unknown as Db
  return {
    db,
    kind: 'postgres',
    sql,
    query: async (text, params) => await sql.unsafe(text, params?.map(jsonParam) as never[]) as never,
    exec: async (text) => { await sql.unsafe(text).simple() },
    listen: async (channel, onMessage, onListen) => {
      const meta = await listener.listen(channel, onMessage, onListen)
      return async () => { await meta.unlisten() }
    },
    // through the service's client (sql.notify is postgres.js's own, which the pool's count does not see)
    notify: async (channel, payload) => { await sql.unsafe('select pg_notify($1, $2)', [channel, payload]) },
    close: async () => { await Promise.all([sql.end({ timeout: 5 }), listener !== sql && listener.end({ timeout: 5 })]) },
    usage
  }
}

export async function createDatabase (opts: DatabaseOptions): Promise<Database> {
  if (opts.pglite) return fromPglite(opts.pglite)
  if (opts.url) return fromPostgres(opts.url, opts.max, opts.prepare, undefined, opts.directUrl)
  let dir: string | undefined
  if (opts.dataDir) {
    dir = join(opts.dataDir, 'pglite')
    mkdirSync(dir, { recursive: true, mode: 0o700 })
  }
  const pg = await openPglite(dir)
  return fromPglite(pg)
}
