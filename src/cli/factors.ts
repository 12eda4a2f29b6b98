// npm run factors -- remove --user EMAIL
// An operator removes every second factor of an account that lost them all, once the person's
// identity is proved out of band as at enrolment (docs/operations.md, Lost second factors): the
// authenticator app, its recovery codes and the passkeys go as one credential change
// (docs/decisions.md, Credential versions), which ends every session of the account and, in the same
// transaction, revokes its API keys and disables its webhook endpoints (docs/decisions.md, Recovery
// cuts off an intruder): whoever took the factors' place may have made them. It then signs in with
// its password or Google at no level, and may set up a second factor again.
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
const { eq } = await import('drizzle-orm')
const { mfaRecoveryCodes, mfaTotp, passkeys, users } = await import('../db/schema.ts')
// while a server owns the embedded database this goes through it, and the triggers' NOTIFYs reach that server
const database = await openForCommand(config, 'npm run factors')
// the sessions table's trigger announces every ending; this process has no in-memory view of its own
const credentials = createCredentialChanges({ database, announceEnded: async () => {} })
const audit = createAuditService({ database, retentionDays: config.auditRetentionDays })
// the api_keys trigger's NOTIFY tells every server of the revoked keys
const cutOff = createAccessCutOff({ database, audit, announceEnded: () => {} })
let code = 0
try {
  const [user] = await database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
  if (!user) {
    console.error(`no account has the address ${email}`)
    code = 1
  } else {
    const changed = await credentials.change(user.id, null, async (tx) => {
      const totp = await tx.delete(mfaTotp).where(eq(mfaTotp.userId, user.id)).returning({ confirmedAt: mfaTotp.confirmedAt })
      const codes = await tx.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, user.id)).returning({ usedAt: mfaRecoveryCodes.usedAt })
      const keys = await tx.delete(passkeys).where(eq(passkeys.userId, user.id)).returning({ name: passkeys.name })
      // nothing to remove: the change rolls back, no session ends and no row is written
      if (!totp.length && !codes.length && !keys.length) return null
      // in the change's transaction: the row is there exactly when the factors are gone
      await audit.recordIn(tx, AUDIT.mfaFactorsRemoved, user.id)
      const cut = await cutOff.within(tx, user.id)
      await cutOff.recordIn(tx, user.id, cut)
      return { totp: totp[0] ?? null, codes, keys, cut }
    })
    if (!changed) {
      console.log(`${email} has no second factor: nothing changed`)
    } else {
      const { totp, codes, keys, cut } = changed.value
      const app = totp === null ? 'no authenticator app' : totp.confirmedAt ? 'the authenticator app' : 'an unconfirmed authenticator app set-up'
      const unused = codes.filter((c) => c.usedAt === null).length
      const names = keys.map((k) => JSON.stringify(k.name)).join(', ')
      console.log(`removed from ${email}: ${app}, ${codes.length} recovery code(s) (${unused} unused), ${keys.length} passkey(s)${names ? ` (${names})` : ''}`)
      console.log(`ended ${changed.ended.length} session(s) of ${email}`)
      console.log(describeCutOff(cut))
    }
  }
} finally {
  await database.close()
}
process.exit(code)
