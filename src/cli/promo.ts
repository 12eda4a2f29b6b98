// npm run promo -- create CODE --max-uses N [--expires YYYY-MM-DD] [--credits K]
// npm run promo -- list
// The arguments are checked before anything else is loaded: someone who mistypes a flag gets the
// answer at once, not after the configuration, database and service modules have loaded.
import { parseArgs } from 'node:util'
import type { NewPromocode } from '../services/billing/promocodes.ts'

const USAGE = 'usage: npm run promo -- create CODE --max-uses N [--expires YYYY-MM-DD] [--credits K]\n       npm run promo -- list'

function fail (message: string): never {
  console.error(message)
  process.exit(2)
}

let parsed
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: { 'max-uses': { type: 'string' }, expires: { type: 'string' }, credits: { type: 'string' } }
  })
} catch (err) {
  // an unknown option or a missing value: say so, without a stack trace
  fail(`${(err as Error).message.split('\n')[0]}\n${USAGE}`)
}
const { positionals, values } = parsed
const [command, code] = positionals
if (command !== 'create' && command !== 'list') fail(USAGE)

// Every argument is checked before the database is opened.
let promo: NewPromocode | undefined
if (command === 'create') {
  if (!code || !/^[\w-]{1,64}$/.test(code)) fail('CODE: 1 to 64 letters, digits, - or _\n' + USAGE)
  const maxUses = Number(values['max-uses'])
  if (!Number.isInteger(maxUses) || maxUses < 1) fail('--max-uses: a whole number >= 1\n' + USAGE)
  const credits = values.credits === undefined ? 1 : Number(values.credits)
  if (!Number.isInteger(credits) || credits < 0) fail('--credits: a whole number >= 0')
  let expiresAt: Date | null = null
  if (values.expires !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(values.expires) || Number.isNaN(Date.parse(values.expires))) fail('--expires: YYYY-MM-DD')
    // valid through the whole of that day (UTC)
    expiresAt = new Date(Date.parse(values.expires) + 24 * 3600 * 1000)
  }
  promo = { code, maxUses, credits, expiresAt }
}

const { loadConfig } = await import('../config.ts')
const { ConfigError } = await import('../errors.ts')
let config
try { config = loadConfig() } catch (err) { fail(err instanceof ConfigError ? err.message : String(err)) }
// the database modules, once the configuration is known to be good
const { openForCommand } = await import('./open-database.ts')
const { createPromocodeService } = await import('../services/billing/promocodes.ts')
// while a server owns the embedded database this goes through it: a code created here works there at once
const database = await openForCommand(config, 'npm run promo')
const promos = createPromocodeService({ db: database.db })
try {
  if (promo) {
    try {
      const row = await promos.create(promo)
      console.log(`created ${row.code}: ${row.maxUses} uses, ${row.credits} credit(s)${promo.expiresAt ? `, expires ${values.expires}` : ''}`)
    } catch (err) {
      if (/duplicate key|unique/i.test(String((err as Error).cause ?? err))) {
        await database.close()
        fail(`promocode ${promo.code} already exists`)
      }
      throw err
    }
  } else {
    const rows = await promos.list()
    if (!rows.length) console.log('no promocodes')
    // `--expires D` stores the first instant after day D: list names D again, the last day it works
    const lastDay = (at: Date) => new Date(at.getTime() - 1).toISOString().slice(0, 10)
    for (const r of rows) {
      console.log(`${r.code}\t${r.uses}/${r.maxUses} used\t${r.credits} credit(s)\t${r.expiresAt ? `expires ${lastDay(r.expiresAt)}` : 'no expiry'}`)
    }
  }
} finally {
  await database.close()
}
