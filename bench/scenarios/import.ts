// 8. Import of 1,000,000 NDJSON lines into PostgreSQL (`npm run import`, its own process) against
// COPY of the same rows from files (bench/clients/copy-load.ts, its own process), each into a fresh,
// migrated database. Target: >= 0.50 of COPY's rows/s, and the importer's RSS flat (printed).
// BENCH_IMPORT_REPEATS (default 0.1): the share of lines that repeat a key, as collector feeds do
// (a friendship from both sides, a follow again with its until); COPY loads the last versions.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import postgres from 'postgres'
import { migrateDatabase } from '../../src/db/migrate.ts'
import { COPY_TABLES, writeImportInput, type ImportInput } from '../data/import-input.ts'
import { freshDatabase } from '../lib/database.ts'
import { ROOT } from '../lib/processes.ts'
import { round } from '../lib/results.ts'
import { settings } from '../lib/settings.ts'
import { runImport, type ImportRun } from '../lib/seed.ts'
import type { Scenario, ScenarioContext } from '../lib/scenario.ts'

const TARGET = 0.5
// "flat": the importer's peak RSS on the full input at most this many times its peak on a tenth of it
const FLAT = 1.5
const MiB = 2 ** 20

interface Side { seconds: number, rowsPerSecond: number, rssPeakMiB?: number }

async function migratedDatabase (label: string) {
  const db = await freshDatabase(label)
  await migrateDatabase({ url: db.url })
  return db
}

async function countRows (url: string): Promise<Record<string, number>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const out: Record<string, number> = {}
    for (const { table } of COPY_TABLES) out[table] = Number((await sql.unsafe(`select count(*)::int as n from ${table}`))[0].n)
    return out
  } finally {
    await sql.end({ timeout: 5 })
  }
}

function sameRows (input: ImportInput, counted: Record<string, number>): boolean {
  return COPY_TABLES.every(({ table }) => counted[table] === input.rows[table])
}

async function copyLoad (input: ImportInput): Promise<{ seconds: number, rows: Record<string, number> }> {
  const db = await migratedDatabase('copy')
  try {
    const spec = COPY_TABLES.map((t) => ({ ...t, file: input.copyFiles[t.table] }))
    const t0 = performance.now()
    const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/clients/copy-load.ts', db.url, JSON.stringify(spec)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    proc.stdout.on('data', (c: Buffer) => { out += c })
    proc.stderr.on('data', (c: Buffer) => { out += c })
    const [code] = await once(proc, 'exit') as [number | null]
    const seconds = (performance.now() - t0) / 1000
    if (code !== 0) throw new Error(`COPY failed (exit ${code}): ${out.slice(0, 2000)}`)
    return { seconds, rows: await countRows(db.url) }
  } finally {
    await db.drop()
  }
}

async function importLoad (ctx: ScenarioContext, input: ImportInput): Promise<{ run: ImportRun, rows: Record<string, number> }> {
  const db = await migratedDatabase('import')
  try {
    const run = await runImport(db.url, input.ndjson, join(ctx.run.dir, 'data'))
    if (run.exitCode !== 0) throw new Error(`import failed (exit ${run.exitCode}): ${run.output.slice(0, 2000)}`)
    return { run, rows: await countRows(db.url) }
  } finally {
    await db.drop()
  }
}

const mib = (b: number) => round(b / MiB, 1)

/** the RSS curve in ten steps of the run's duration */
function rssTrace (samples: number[]): number[] {
  if (samples.length === 0) return []
  return Array.from({ length: 11 }, (_, i) => mib(samples[Math.min(samples.length - 1, Math.round((i / 10) * (samples.length - 1)))]))
}

export const ingest: Scenario = {
  name: 'import',
  number: 8,
  title: 'import of 1,000,000 NDJSON lines into PostgreSQL',
  async run (ctx) {
    const lines = settings.importLines
    const t0 = performance.now()
    const repeats = settings.importRepeats
    const full = await writeImportInput(ctx.run.dir, lines, repeats)
    const tenth = await writeImportInput(ctx.run.dir, Math.floor(lines / 10), repeats)
    console.log(`  input: ${full.lines} lines (${(repeats * 100).toFixed(0)} % repeats of a key), ${mib(full.bytes)} MiB (and ${tenth.lines} for the warm-up) written in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    console.log(`  rows: ${COPY_TABLES.map(({ table }) => `${table} ${full.rows[table]}`).join(', ')}`)

    // warm-up, on a tenth of the input: caches, and the importer's RSS on a small input
    const wc = await copyLoad(tenth)
    const wi = await importLoad(ctx, tenth)
    const smallPeak = Math.max(...wi.run.rss)
    console.log(`  warm-up (${tenth.lines} lines): COPY ${wc.seconds.toFixed(1)} s, import ${(wi.run.ms / 1000).toFixed(1)} s, import RSS peak ${mib(smallPeak)} MiB`)

    const base: Side[] = []
    const cand: Side[] = []
    let rowsOk = sameRows(tenth, wc.rows) && sameRows(tenth, wi.rows)
    let rss: number[] = []
    for (let i = 0; i < settings.importRounds; i++) {
      const c = await copyLoad(full)
      base.push({ seconds: round(c.seconds, 2), rowsPerSecond: round(full.lines / c.seconds, 0) })
      console.log(`    round ${i + 1} baseline   COPY    ${c.seconds.toFixed(1).padStart(7)} s  ${Math.round(full.lines / c.seconds).toString().padStart(8)} rows/s`)
      const m = await importLoad(ctx, full)
      const s = m.run.ms / 1000
      rss = m.run.rss
      cand.push({ seconds: round(s, 2), rowsPerSecond: round(full.lines / s, 0), rssPeakMiB: mib(Math.max(...m.run.rss)) })
      console.log(`    round ${i + 1} candidate  import  ${s.toFixed(1).padStart(7)} s  ${Math.round(full.lines / s).toString().padStart(8)} rows/s  RSS peak ${mib(Math.max(...m.run.rss))} MiB`)
      rowsOk = rowsOk && sameRows(full, c.rows) && sameRows(full, m.rows)
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
    const baseRps = round(mean(base.map((b) => b.rowsPerSecond)), 0)
    const candRps = round(mean(cand.map((b) => b.rowsPerSecond)), 0)
    const ratio = round(candRps / baseRps)
    const peak = Math.max(...cand.map((c) => c.rssPeakMiB ?? 0))
    const flat = peak <= FLAT * mib(smallPeak)
    const trace = rssTrace(rss)
    console.log(`    import RSS over the run (MiB, 0 % .. 100 %): ${trace.join(' ')}`)
    console.log(`    RSS peak ${peak} MiB on ${full.lines} lines vs ${mib(smallPeak)} MiB on ${tenth.lines}: ${flat ? 'flat' : 'NOT flat'}`)
    console.log(`    ratio ${ratio.toFixed(3)}; every table holds the expected rows after both: ${rowsOk}`)
    const checks = { ratio: ratio >= TARGET, rssFlat: flat, sameRows: rowsOk }
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      baseline: { label: 'COPY ... FROM STDIN of the same rows, one file per table, one transaction', rowsPerSecond: baseRps, rounds: base },
      candidate: { label: 'npm run import -- FILE (validation pass + write passes, one transaction)', rowsPerSecond: candRps, rounds: cand },
      ratio,
      input: { lines: full.lines, repeats, mib: mib(full.bytes), rows: full.rows },
      rss: { traceMiB: trace, peakMiB: peak, peakOnTenthMiB: mib(smallPeak), flatRule: `peak <= ${FLAT} x the peak on a tenth of the input` },
      target: { metric: 'rows (NDJSON lines) per second, candidate / baseline; importer RSS', text: `>= ${TARGET.toFixed(2)} of COPY's rows/s, RSS flat` },
      met: checks.ratio && checks.rssFlat && checks.sameRows,
      checks,
      notes: ['rows/s counts NDJSON records (lines) for both sides; COPY loads the same records as table rows (account interests included); both timed as their whole process, start-up included'],
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { lines, repeats, rounds: settings.importRounds }
    }
  }
}

