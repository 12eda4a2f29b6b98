// The database: created from config (and migrated) unless the caller hands one in (tests, CLIs).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createDatabase, type Database, type Db } from '../db/client.ts'
import { migrateDatabase } from '../db/migrate.ts'

declare module 'fastify' {
  interface FastifyInstance {
    database: Database
    db: Db
  }
}

export interface DbPluginOptions {
  database?: Database
  url: string
  dataDir: string
  prepare: boolean
}

export async function openDatabase (opts: { url: string, dataDir: string, prepare: boolean }): Promise<Database> {
  if (opts.url) {
    await migrateDatabase({ url: opts.url })
    return await createDatabase({ url: opts.url, prepare: opts.prepare })
  }
  const database = await createDatabase({ dataDir: opts.dataDir })
  await migrateDatabase({ pglite: database.pglite! })
  return database
}

async function dbPlugin (app: FastifyInstance, opts: DbPluginOptions) {
  const owned = !opts.database
  const database = opts.database ?? await openDatabase(opts)
  app.decorate('database', database)
  app.decorate('db', database.db)
  if (owned) app.addHook('onClose', async () => { await database.close() })
}

export default fp(dbPlugin, { name: 'db' })
