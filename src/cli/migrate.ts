// npm run db:migrate: apply the migrations in drizzle/ to DATABASE_URL (or the embedded database).
// The configuration is checked before the database modules load: a wrong setting is answered at once.
import { loadConfig } from '../config.ts'
import { ConfigError } from '../errors.ts'

try {
  const config = loadConfig()
  const { openDatabase } = await import('../plugins/db.ts')
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, prepare: config.databasePrepare })
  await database.close()
  console.log(`migrations applied to ${config.databaseUrl ? 'PostgreSQL' : 'the embedded database'}`)
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err)
  process.exit(1)
}
