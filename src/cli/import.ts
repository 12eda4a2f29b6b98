// npm run import -- FILE [--skip-invalid]
// Imports profile data (NDJSON, docs/architecture.md, Profile data and ingest) into DATABASE_URL or the embedded database. The file is
// validated whole first: with invalid lines nothing is imported (exit 1) unless --skip-invalid.
// A progress line goes to stderr when it is a terminal (nothing when it is not: a log stays clean);
// the summary of what was inserted, updated and unchanged goes to stdout at the end.
// The arguments are checked before anything else is loaded: someone who mistypes a flag gets the
// answer at once, not after the configuration, database and ingest modules have loaded.
import { parseArgs } from 'node:util'
import type { ImportProgress } from '../services/ingest/index.ts'

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

const { loadConfig } = await import('../config.ts')
const { ConfigError } = await import('../errors.ts')
let config
try { config = loadConfig() } catch (err) { fail(err instanceof ConfigError ? err.message : String(err)) }
// the database and ingest modules, once the configuration is known to be good
const { openForCommand } = await import('./open-database.ts')
const { createIngestService } = await import('../services/ingest/index.ts')
const { progressLine, summaryText } = await import('./import-report.ts')

const tty = process.stderr.isTTY
const started = performance.now()
const elapsed = () => (performance.now() - started) / 1000
// lines read in the passes before this one, for the rate over the whole run
let linesBefore = 0
let lastPass = 1
let lastLine = 0
let drawnAt = -1
function progress (p: ImportProgress) {
  if (p.pass !== lastPass) {
    linesBefore += lastLine
    lastPass = p.pass
  }
  lastLine = p.line
  // at most a few redraws a second
  const now = performance.now()
  if (p.done !== p.total && now - drawnAt < 200) return
  drawnAt = now
  const width = process.stderr.columns ?? 80
  process.stderr.write(`\r${progressLine(p, linesBefore + p.line, elapsed(), width).padEnd(width - 1)}`)
}

const database = await openForCommand(config, 'npm run import')
let exitCode = 0
try {
  const ingest = createIngestService({ database })
  let outcome
  try {
    outcome = await ingest.importFile(file, { skipInvalid: values['skip-invalid'], onProgress: tty ? progress : undefined })
  } finally {
    if (tty && drawnAt >= 0) process.stderr.write('\n')
  }
  if (outcome.invalid) {
    console.error(`${outcome.invalid} invalid line${outcome.invalid === 1 ? '' : 's'}${outcome.written ? ' skipped' : ''}:`)
    for (const e of outcome.errors) console.error(`  line ${e.line}: ${e.reason}`)
    if (outcome.invalid > outcome.errors.length) console.error(`  … and ${outcome.invalid - outcome.errors.length} more`)
  }
  if (outcome.written) {
    console.log(summaryText(outcome, elapsed()))
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
