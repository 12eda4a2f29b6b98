// npm run admins -- grant EMAIL --role admin|support
// npm run admins -- revoke EMAIL
// npm run admins -- list
// The operator gives and takes staff roles (docs/operations.md, Support): the first admin of a
// deployment (or ADMIN_EMAILS), and whoever must be one when no admin can sign in. Each change is an
// `admin.role` audit row with no actor (an operator's command) in the change's transaction. The
// last admin is never revoked: the service always has someone who can give roles at /admin.
// The arguments are checked before anything else is loaded, as npm run promo does.
import { parseArgs } from 'node:util'

const USAGE = 'usage: npm run admins -- grant EMAIL --role admin|support\n       npm run admins -- revoke EMAIL\n       npm run admins -- list'

function fail (message: string, code = 2): never {
  console.error(message)
  process.exit(code)
}

let parsed
try {
  parsed = parseArgs({ allowPositionals: true, options: { role: { type: 'string' } } })
} catch (err) {
  fail(`${(err as Error).message.split('\n')[0]}\n${USAGE}`)
}
const { positionals, values } = parsed
const [command, given, ...extra] = positionals
if (extra.length > 0) fail(USAGE)
if (command === 'list') {
  if (given !== undefined || values.role !== undefined) fail(USAGE)
} else if (command === 'grant' || command === 'revoke') {
  if (given === undefined) fail(`EMAIL is required\n${USAGE}`)
  if (command === 'grant' && values.role !== 'admin' && values.role !== 'support') fail(`--role: admin or support\n${USAGE}`)
  if (command === 'revoke' && values.role !== undefined) fail(USAGE)
} else {
  fail(USAGE)
}
const email = given?.trim().toLowerCase() ?? ''
if (command !== 'list' && !/^[^\s@]+@[^\s@]+$/.test(email)) fail(`EMAIL: an e-mail address\n${USAGE}`)

const { loadConfig } = await import('../config.ts')
const { ConfigError } = await import('../errors.ts')
let config
try { config = loadConfig() } catch (err) { fail(err instanceof ConfigError ? err.message : String(err)) }
const { openForCommand } = await import('./open-database.ts')
const { createAuditService } = await import('../services/accounts/audit.ts')
const { createRoleChanges } = await import('../services/staff/role-change.ts')
const { eq } = await import('drizzle-orm')
const { users } = await import('../db/schema/index.ts')
// while a server owns the embedded database this goes through it; the users trigger tells every
// server of the change, and the /admin check reads the role at each call
const database = await openForCommand(config, 'npm run admins')
const roles = createRoleChanges({ database, audit: createAuditService({ database, retentionDays: config.auditRetentionDays }) })
let code = 0
try {
  if (command === 'list') {
    const staff = await roles.staff()
    if (!staff.length) console.log('no staff')
    for (const s of staff) console.log(`${s.email}\t${s.role}`)
  } else {
    const [user] = await database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
    const to = command === 'grant' ? values.role as 'admin' | 'support' : 'user'
    const change = user ? await roles.set(user.id, to, { actorId: null, meta: null, reason: `npm run admins -- ${command}` }) : { outcome: 'unknown' as const }
    if (change.outcome === 'unknown') {
      console.error(`no account has the address ${email}`)
      code = 1
    } else if (change.outcome === 'last-admin') {
      console.error(`refused: ${email} is the last admin; grant another admin first`)
      code = 1
    } else if (change.outcome === 'unchanged') {
      console.log(`${email} is ${to === 'user' ? 'not staff' : to} already: nothing changed`)
    } else if (change.outcome === 'changed') {
      console.log(`${email}: ${change.from} -> ${change.to}`)
      if (to === 'user' && config.adminEmails.includes(email)) {
        console.log(`note: ${email} is listed in ADMIN_EMAILS and becomes admin again at its next sign-in; remove it there too`)
      }
    }
  }
} finally {
  await database.close()
}
process.exit(code)
