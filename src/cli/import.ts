// npm run import -- FILE [--skip-invalid]
// Imports profile data (NDJSON, DESIGN 5) into DATABASE_URL or the embedded database. The file is
// validated whole first: with invalid lines nothing is imported (exit 1) unless --skip-invalid.
// A progress bar goes to stderr when it is a terminal.
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.ts'
import { openDatabase } from '../plugins/db.ts'
import { createIngestService, type ImportProgress } from '../services/ingest/index.ts'

const USAGE = 'usage: npm run import -- FILE [--skip-invalid]'

function fail (message: string, code = 2): never {
  console.error(message)
  process.exit(code)
}

let parsed
try {
  parsed = parseArgs({ allowPositionals: true, options: { 'skip-invalid': { type: 'boolean', default: false } } })
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`)
}
const { positionals, values } = parsed
if (positionals.length !== 1) fail(USAGE)
const [file] = positionals

let config
try { config = loadConfig() } catch (err) { fail(err instanceof ConfigError ? err.message : String(err)) }

const tty = process.stderr.isTTY
let drawn = -1
function progress (p: ImportProgress) {
  const permille = Math.floor((p.done / p.total) * 1000)
  if (permille === drawn) return
  drawn = permille
  const width = Math.max(10, Math.min(40, (process.stderr.columns ?? 80) - 30))
  const full = Math.round((width * permille) / 1000)
  process.stderr.write(`\r${p.stage.padEnd(10)} [${'#'.repeat(full)}${'.'.repeat(width - full)}] ${(permille / 10).toFixed(1).padStart(5)}%`)
}

const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, prepare: config.databasePrepare })
let exitCode = 0
try {
  const ingest = createIngestService({ database })
  let outcome
  try {
    outcome = await ingest.importFile(file, { skipInvalid: values['skip-invalid'], onProgress: tty ? progress : undefined })
  } finally {
    if (tty && drawn >= 0) process.stderr.write('\n')
  }
  if (outcome.invalid) {
    console.error(`${outcome.invalid} invalid line${outcome.invalid === 1 ? '' : 's'}${outcome.written ? ' skipped' : ''}:`)
    for (const e of outcome.errors) console.error(`  line ${e.line}: ${e.reason}`)
    if (outcome.invalid > outcome.errors.length) console.error(`  … and ${outcome.invalid - outcome.errors.length} more`)
  }
  if (outcome.written) {
    const counts = Object.entries(outcome.imported).map(([type, n]) => `${type} ${n}`).join(', ')
    console.log(`imported: ${counts}`)
  } else {
    console.error('nothing imported (use --skip-invalid to import the valid lines)')
    exitCode = 1
  }
} catch (err) {
  const code = (err as { code?: string }).code
  if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') console.error(`cannot read ${file}: ${code}`)
  else console.error(err instanceof Error ? err.message : err)
  exitCode = 1
} finally {
  await database.close()
}
process.exit(exitCode)
