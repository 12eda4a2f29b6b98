// How a command opens the database: DATABASE_URL, else the embedded one, directly when no process
// owns it or through the server that does (src/db/embedded.ts). When neither is possible, or the
// database does not answer, the command stops with the one line that says so (exit 1): who holds
// the embedded database and what to do, or DATABASE_URL and where it points (never its password).
import type { DatabaseConfig } from '../config.ts'
import type { Database } from '../db/client.ts'
import { databaseOpenError } from '../db/connection-error.ts'
import { EmbeddedDatabaseInUse } from '../errors.ts'
import { openDatabase } from '../plugins/db.ts'

type Settings = Pick<DatabaseConfig, 'databaseUrl' | 'databaseDirectUrl' | 'dataDir' | 'databasePrepare'>

export async function openForCommand (config: Settings, name: string, opts: { throughServer?: boolean } = {}): Promise<Database> {
  try {
    return await openDatabase({
      url: config.databaseUrl,
      directUrl: config.databaseDirectUrl,
      dataDir: config.dataDir,
      prepare: config.databasePrepare,
      embedded: { role: 'command', name, throughServer: opts.throughServer }
    })
  } catch (err) {
    const line = err instanceof EmbeddedDatabaseInUse ? err.message : databaseOpenError(err, config.databaseUrl)
    if (line === null) throw err
    console.error(line)
    process.exit(1)
  }
}
