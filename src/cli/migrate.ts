// npm run db:migrate: apply the migrations in drizzle/ to DATABASE_URL (or the embedded database).
// The configuration is checked before the database modules load: a wrong setting is answered at once.
import { loadConfig } from '../config.ts'
import { ConfigError } from '../errors.ts'

try {
  const config = loadConfig()
  const { openForCommand } = await import('./open-database.ts')
  const database = await openForCommand(config, 'npm run db:migrate')
  await database.close()
  console.log(`migrations applied to ${config.databaseUrl ? 'PostgreSQL' : 'the embedded database'}`)
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err)
  process.exit(1)
}
