// The database: created from config (and migrated) unless the caller hands one in (tests, CLIs).
// A server that opens the embedded database owns it and serves it to commands (src/db/embedded.ts).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createDatabase, type Database, type Db } from '../db/client.ts'
import { migrateDatabase } from '../db/migrate.ts'
import { openEmbedded, type EmbeddedOptions } from '../db/embedded.ts'

declare module 'fastify' {
  interface FastifyInstance {
    database: Database
    db: Db
  }
}

export interface DbPluginOptions {
  database?: Database
  url: string
  /** the database itself behind a pooler (DATABASE_DIRECT_URL): migrations and LISTEN; else url */
  directUrl?: string
  dataDir: string
  prepare: boolean
}

export interface OpenOptions {
  url: string
  /** the database itself behind a pooler (DATABASE_DIRECT_URL): migrations and LISTEN; else url */
  directUrl?: string
  dataDir: string
  prepare: boolean
  /** the embedded database: who opens it (src/db/embedded.ts); a command, unless a server says so */
  embedded?: Omit<EmbeddedOptions, 'dataDir'>
}

export async function openDatabase (opts: OpenOptions): Promise<Database> {
  if (opts.url) {
    // the migrations hold a session-level lock, which a pooler in transaction mode cannot keep
    await migrateDatabase({ url: opts.directUrl || opts.url })
    return await createDatabase({ url: opts.url, directUrl: opts.directUrl, prepare: opts.prepare })
  }
  return await openEmbedded({ dataDir: opts.dataDir, ...(opts.embedded ?? { role: 'command', name: 'a command' }) })
}

async function dbPlugin (app: FastifyInstance, opts: DbPluginOptions) {
  const owned = !opts.database
  const database = opts.database ?? await openDatabase({
    ...opts,
    embedded: { role: 'server', name: 'a server', warn: (err, message) => app.log.warn({ err }, message) }
  })
  app.decorate('database', database)
  app.decorate('db', database.db)
  if (owned) app.addHook('onClose', async () => { await database.close() })
}

export default fp(dbPlugin, { name: 'db' })
