// How a command opens the database: DATABASE_URL, else the embedded one, directly when no process
// owns it or through the server that does (src/db/embedded.ts). When neither is possible the command
// stops with the one line that says who holds it and what to do (exit 1), not a stack trace.
import type { Config } from '../config.ts'
import type { Database } from '../db/client.ts'
import { EmbeddedDatabaseInUse } from '../errors.ts'
import { openDatabase } from '../plugins/db.ts'

export async function openForCommand (config: Config, name: string, opts: { throughServer?: boolean } = {}): Promise<Database> {
  try {
    return await openDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      prepare: config.databasePrepare,
      embedded: { role: 'command', name, throughServer: opts.throughServer }
    })
  } catch (err) {
    if (!(err instanceof EmbeddedDatabaseInUse)) throw err
    console.error(err.message)
    process.exit(1)
  }
}
