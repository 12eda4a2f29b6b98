// npm run db:migrate: apply the migrations in drizzle/ to DATABASE_URL (or the embedded database),
// and on PostgreSQL create the job queue's schema and queues, so that the processes a deploy starts
// together after it find them made (src/jobs/queue.ts). It reads the database settings alone (the
// release step needs no mail, CAPTCHA or signing secrets), and checks them before the database
// modules load: a wrong setting is answered at once.
import { loadDatabaseConfig } from '../config.ts'
import { ConfigError } from '../errors.ts'

let config: ReturnType<typeof loadDatabaseConfig>
try {
  config = loadDatabaseConfig()
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err)
  process.exit(1)
}
// while a server owns the embedded database this goes through it (src/cli/open-database.ts)
const { openForCommand } = await import('./open-database.ts')
const database = await openForCommand(config, 'npm run db:migrate')
if (config.databaseUrl) {
  const { prepareQueue } = await import('../jobs/queue.ts')
  await prepareQueue(database, { warn: (o, m) => console.error(m, JSON.stringify(o)) })
}
await database.close()
console.log(`migrations applied to ${config.databaseUrl ? 'PostgreSQL' : 'the embedded database'}`)
