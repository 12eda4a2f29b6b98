// npm run factors -- remove --user EMAIL
// An operator removes every second factor of an account that lost them all, once the person's
// identity is proved out of band as at enrolment (docs/operations.md, Lost second factors), through
// the service staff's DELETE /admin/users/{id}/factors uses too (src/services/accounts/factor-removal.ts
// says what goes, and what else ends with them).
// The arguments are checked before anything else is loaded, as npm run sessions does.
import { parseArgs } from 'node:util'

const USAGE = 'usage: npm run factors -- remove --user EMAIL'

function fail (message: string): never {
  console.error(message)
  process.exit(2)
}

let parsed
try {
  parsed = parseArgs({ allowPositionals: true, options: { user: { type: 'string' } } })
} catch (err) {
  fail(`${(err as Error).message.split('\n')[0]}\n${USAGE}`)
}
const { positionals, values } = parsed
if (positionals.length !== 1 || positionals[0] !== 'remove') fail(USAGE)
if (values.user === undefined) fail(`--user EMAIL is required\n${USAGE}`)
const email = values.user.trim().toLowerCase()
if (!/^[^\s@]+@[^\s@]+$/.test(email)) fail(`--user: an e-mail address\n${USAGE}`)

const { loadConfig } = await import('../config.ts')
const { ConfigError } = await import('../errors.ts')
let config
try { config = loadConfig() } catch (err) { fail(err instanceof ConfigError ? err.message : String(err)) }
const { openForCommand } = await import('./open-database.ts')
const { createCredentialChanges } = await import('../services/sessions/credential-change.ts')
const { AUDIT, createAuditService } = await import('../services/accounts/audit.ts')
const { createAccessCutOff, describeCutOff } = await import('../services/accounts/cut-off.ts')
const { createFactorRemoval } = await import('../services/accounts/factor-removal.ts')
const { eq } = await import('drizzle-orm')
const { users } = await import('../db/schema/index.ts')
// while a server owns the embedded database this goes through it, and the triggers' NOTIFYs reach that server
const database = await openForCommand(config, 'npm run factors')
// the sessions table's trigger announces every ending; this process has no in-memory view of its own
const credentials = createCredentialChanges({ database, announceEnded: async () => {} })
const audit = createAuditService({ database, retentionDays: config.auditRetentionDays })
// the api_keys trigger's NOTIFY tells every server of the revoked keys
const cutOff = createAccessCutOff({ database, audit, announceEnded: () => {} })
const removal = createFactorRemoval({ credentials, cutOff })
let code = 0
try {
  const [user] = await database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
  if (!user) {
    console.error(`no account has the address ${email}`)
    code = 1
  } else {
    // in the change's transaction: the row is there exactly when the factors are gone
    const changed = await removal.remove(user.id, async (tx) => { await audit.recordIn(tx, AUDIT.mfaFactorsRemoved, user.id) })
    if (!changed) {
      console.log(`${email} has no second factor: nothing changed`)
    } else {
      const { totp, codes, keys, cut, ended } = changed
      const app = totp === null ? 'no authenticator app' : totp.confirmedAt ? 'the authenticator app' : 'an unconfirmed authenticator app set-up'
      const unused = codes.filter((c) => c.usedAt === null).length
      const names = keys.map((k) => JSON.stringify(k.name)).join(', ')
      console.log(`removed from ${email}: ${app}, ${codes.length} recovery code(s) (${unused} unused), ${keys.length} passkey(s)${names ? ` (${names})` : ''}`)
      console.log(`ended ${ended.length} session(s) of ${email}`)
      console.log(describeCutOff(cut))
    }
  }
} finally {
  await database.close()
}
process.exit(code)
