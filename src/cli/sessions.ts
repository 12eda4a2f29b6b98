// npm run sessions -- end --user EMAIL
// npm run sessions -- end --all
// An operator ends one person's sessions, or everyone's (docs/operations.md, Ending sessions). Each
// ending sets ended_at, and drizzle/0005's trigger records the revocation and NOTIFYs session_ended
// in the same transaction: every running instance refuses those sessions' JWTs and cookies at once
// (or within SESSION_RECONCILE_S if a NOTIFY is lost). API keys are not sessions: they stay.
// The arguments are checked before anything else is loaded, as npm run promo does.
import { parseArgs } from 'node:util'

const USAGE = 'usage: npm run sessions -- end --user EMAIL\n       npm run sessions -- end --all'

function fail (message: string): never {
  console.error(message)
  process.exit(2)
}

let parsed
try {
  parsed = parseArgs({ allowPositionals: true, options: { user: { type: 'string' }, all: { type: 'boolean' } } })
} catch (err) {
  fail(`${(err as Error).message.split('\n')[0]}\n${USAGE}`)
}
const { positionals, values } = parsed
if (positionals.length !== 1 || positionals[0] !== 'end') fail(USAGE)
if ((values.user === undefined) === (values.all !== true)) fail(`one of --user EMAIL or --all\n${USAGE}`)
const email = values.user?.trim().toLowerCase()
if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) fail(`--user: an e-mail address\n${USAGE}`)

const { loadConfig } = await import('../config.ts')
const { ConfigError } = await import('../errors.ts')
let config
try { config = loadConfig() } catch (err) { fail(err instanceof ConfigError ? err.message : String(err)) }
const { openForCommand } = await import('./open-database.ts')
const { createSessionControl } = await import('../services/sessions/control.ts')
const { eq } = await import('drizzle-orm')
const { users } = await import('../db/schema/index.ts')
// while a server owns the embedded database this goes through it, and its trigger's NOTIFY reaches that server
const database = await openForCommand(config, 'npm run sessions')
// the trigger announces every ending; this process has no in-memory view of its own to update
const control = createSessionControl({ database, announceEnded: async () => {} })
let code = 0
try {
  if (email === undefined) {
    console.log(`ended ${await control.endEvery()} session(s) of every user`)
  } else {
    const [user] = await database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
    if (!user) {
      console.error(`no account has the address ${email}`)
      code = 1
    } else {
      console.log(`ended ${await control.endAll(user.id)} session(s) of ${email}`)
    }
  }
} finally {
  await database.close()
}
process.exit(code)
