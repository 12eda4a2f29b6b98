// npm run demo-data -- --seed N --out FILE [--month YYYY-MM]
// npm run demo-data -- --next-month [--out FILE [--month YYYY-MM] | --import] [--seed N]
// Writes the deterministic demo dataset as NDJSON (`--out -` = stdout). The same seed and month give
// the same bytes; the month defaults to the current UTC month.
// --next-month gives the showcase person a later month (src/services/demo/next-month.ts): with --out
// the month after the demo set's last month (--month), as lines; without --out (or with --import)
// straight into the database `npm start` uses (through a running server, as `npm run import` does), the month after
// the latest one the showcase has there, so a watch on its report raises an alert.
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { parseArgs } from 'node:util'
import type { Writable } from 'node:stream'
import { currentMonth, demoDataLines } from '../services/demo/data.ts'
import { demoShowcaseFollows, monthAfter, nextMonthLines } from '../services/demo/next-month.ts'

const USAGE = 'usage: npm run demo-data -- --seed N --out FILE [--month YYYY-MM]\n' +
  '       npm run demo-data -- --next-month [--out FILE [--month YYYY-MM] | --import] [--seed N]'
// the seed `npm start` imports the demo dataset with (src/services/demo/import.ts)
const START_SEED = '1'

function fail (message: string): never {
  console.error(`${message}\n${USAGE}`)
  process.exit(2)
}

let values
try {
  values = parseArgs({
    options: {
      seed: { type: 'string' },
      out: { type: 'string' },
      month: { type: 'string' },
      'next-month': { type: 'boolean', default: false },
      import: { type: 'boolean', default: false }
    }
  }).values
} catch (err) {
  fail((err as Error).message)
}
const next = values['next-month']
const seedText = values.seed ?? (next ? START_SEED : undefined)
const seed = Number(seedText)
if (seedText === undefined || !/^\d+$/.test(seedText) || seed > 0xffffffff) fail('--seed: a whole number from 0 to 4294967295')
if (values.import && !next) fail('--import: only with --next-month')
if (values.import && (values.out || values.month)) fail('--import: the month comes from the database; no --out or --month')
if (next && !values.out && values.month) fail('--month: only with --out (an import takes the month after the database\'s latest)')
if (!values.out && !next) fail('--out: the file to write (- for stdout)')
// --next-month alone imports: the newcomer's one command after watching the showcase's report
const importing = next && !values.out
const month = values.month ?? currentMonth()
if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month) || month < '1900') fail('--month: YYYY-MM')

if (importing) {
  const { loadConfig } = await import('../config.ts')
  const { ConfigError } = await import('../errors.ts')
  let config
  try { config = loadConfig() } catch (err) { fail(err instanceof ConfigError ? err.message : String(err)) }
  const { openForCommand } = await import('./open-database.ts')
  const { importNextMonth } = await import('../services/demo/import.ts')
  const database = await openForCommand(config, 'npm run demo-data')
  let exitCode = 0
  try {
    const done = await importNextMonth(database, seed)
    if (done === null) {
      console.error('the database has no demo data (alex.rivera has no follows): start the server once on an empty database first')
      exitCode = 1
    } else {
      console.log(`imported ${done.month} for alex.rivera: ${done.outcome.imported.follow} follows (new pages and one unfollowed on each network)`)
    }
  } catch (err) {
    console.error(err instanceof Error ? err.message : err)
    exitCode = 1
  } finally {
    await database.close()
  }
  process.exit(exitCode)
}

const lines = next ? nextMonthLines(seed, monthAfter(month), demoShowcaseFollows(seed, month)) : demoDataLines(seed, month)
const out: Writable = values.out === '-' ? process.stdout : createWriteStream(values.out!)
let count = 0
let chunk = ''
for (const line of lines) {
  chunk += line + '\n'
  count++
  if (chunk.length >= 64 * 1024) {
    if (!out.write(chunk)) await once(out, 'drain')
    chunk = ''
  }
}
if (out === process.stdout) {
  // stdout is never ended: just let the last chunk drain
  if (!out.write(chunk)) await once(out, 'drain')
} else {
  out.end(chunk)
  await once(out, 'finish')
}
if (values.out !== '-') {
  console.error(next
    ? `wrote ${count} lines to ${values.out} (seed ${seed}, alex.rivera's ${monthAfter(month)}, after a demo set ending ${month})`
    : `wrote ${count} lines to ${values.out} (seed ${seed}, months ending ${month})`)
}
