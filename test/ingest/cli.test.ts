// `npm run import` and `npm run demo-data`, run as the operator runs them: child processes against
// an embedded database in a temporary DATA_DIR, or a new PostgreSQL database with TEST_DATABASE_URL,
// already migrated (these tests are not about migrating: test/foundation/cli.test.ts is).
import t from '../tap.ts'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createDatabase, type Database } from '../../src/db/client.ts'
import { childDatabase, run, tempDir } from '../foundation/support.ts'
import { clock, progressLine } from '../../src/cli/import-report.ts'
import { demoShowcaseFollows, nextMonthLines } from '../../src/services/demo/next-month.ts'
import type { Tap } from '../helper.ts'

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))

/** where a CLI stores its data (migrated): env for the child, and a way to look at the result */
async function target (t: Tap): Promise<{ env: Record<string, string>, open: () => Promise<Database> }> {
  const { env, dataDir, url } = await childDatabase(t, { migrated: true })
  return { env, open: () => url ? createDatabase({ url }) : createDatabase({ dataDir }) }
}

/** a CLI run as the operator runs it, quiet, with the child's configuration in env */
function cli (script: string, args: string[], env: Record<string, string> = {}) {
  return run(script, args, { NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env })
}

t.test('npm run import: a good file exits 0, a bad one lists its lines and exits non-zero', async (t) => {
  const db = await target(t)
  const bad = await cli('src/cli/import.ts', [fixture('ingest-invalid.ndjson')], db.env)
  t.equal(bad.code, 1, bad.stderr)
  t.match(bad.stderr, /6 invalid lines:\n {2}line 3: unknown categoryId "c-nowhere"\n {2}line 6: source: must be one of/)
  t.match(bad.stderr, /line 10: unknown profileId "p-9"/)
  t.match(bad.stderr, /nothing imported/)
  t.notMatch(bad.stderr, /\r/, 'no progress bar when stderr is not a terminal')

  const good = await cli('src/cli/import.ts', [fixture('ingest-valid.ndjson')], db.env)
  t.equal(good.code, 0, good.stderr)
  t.match(good.stdout, /imported: category 3, redflag 1, interest 4, account 4, profile 4, follow 6, friend 2/)
  t.match(good.stdout, /type +inserted +updated +unchanged\n +category +3 +0 +0\n/)
  t.match(good.stdout, /\n +follow +6 +0 +0\n/)
  t.equal(good.stderr, '', 'nothing on stderr when it is not a terminal')

  const again = await cli('src/cli/import.ts', [fixture('ingest-valid.ndjson')], db.env)
  t.equal(again.code, 0, again.stderr)
  t.match(again.stdout, /\n +follow +0 +0 +6\n/, 're-imported: unchanged')

  const skip = await cli('src/cli/import.ts', [fixture('ingest-invalid.ndjson'), '--skip-invalid'], db.env)
  t.equal(skip.code, 0, skip.stderr)
  t.match(skip.stderr, /6 invalid lines skipped:/)
  t.match(skip.stdout, /imported: category 1, redflag 0, interest 1, account 1, profile 2/)

  const database = await db.open()
  try {
    const rows = await database.query<{ n: number }>('select count(*)::int as n from follows')
    t.equal(rows[0].n, 6)
    t.same(await database.query("select username from profiles where id = 'p-1'"), [{ username: 'jdoe' }], 'the later import updated p-1')
  } finally {
    await database.close()
  }
})

t.test('npm run import: usage and unreadable files', async (t) => {
  const db = await target(t)
  const usage = await cli('src/cli/import.ts', [], db.env)
  t.equal(usage.code, 2)
  t.match(usage.stderr, /usage: npm run import -- FILE/)
  const unknownFlag = await cli('src/cli/import.ts', ['x.ndjson', '--force'], db.env)
  t.equal(unknownFlag.code, 2)
  const missing = await cli('src/cli/import.ts', [join(tempDir(t), 'nope.ndjson')], db.env)
  t.equal(missing.code, 1)
  t.match(missing.stderr, /cannot read .*nope\.ndjson: ENOENT/)
})

t.test('npm run demo-data: the same seed and month give the same bytes', async (t) => {
  const dir = tempDir(t)
  const file = (name: string) => join(dir, name)
  const runs = await Promise.all([
    cli('src/cli/demo-data.ts', ['--seed', '7', '--month', '2025-06', '--out', file('a.ndjson')]),
    cli('src/cli/demo-data.ts', ['--seed', '7', '--month', '2025-06', '--out', file('b.ndjson')])
  ])
  for (const r of runs) t.equal(r.code, 0, r.stderr)
  t.match(runs[0].stderr, /wrote \d+ lines to .*a\.ndjson \(seed 7, months ending 2025-06\)/)
  const a = readFileSync(file('a.ndjson'))
  t.ok(a.length > 1_000_000)
  t.ok(a.equals(readFileSync(file('b.ndjson'))), 'byte-identical')

  const other = await cli('src/cli/demo-data.ts', ['--seed', '8', '--month', '2025-06', '--out', file('c.ndjson')])
  t.equal(other.code, 0)
  t.notOk(a.equals(readFileSync(file('c.ndjson'))), 'another seed, other data')

  const stdout = await cli('src/cli/demo-data.ts', ['--seed', '7', '--month', '2025-06', '--out', '-'])
  t.equal(stdout.code, 0)
  t.equal(stdout.stdout, a.toString(), '--out - writes the same to stdout')

  for (const args of [['--out', file('x')], ['--seed', 'x', '--out', file('x')], ['--seed', '1'], ['--seed', '1', '--out', file('x'), '--month', '2025-13'], ['--bogus']]) {
    const bad = await cli('src/cli/demo-data.ts', args)
    t.equal(bad.code, 2, args.join(' '))
    t.match(bad.stderr, /usage: npm run demo-data/)
  }
})

t.test('npm run demo-data -- --next-month: the lines as a file, then one more month imported', async (t) => {
  const db = await target(t)
  const file = join(tempDir(t), 'next.ndjson')
  const out = await cli('src/cli/demo-data.ts', ['--next-month', '--month', '2026-11', '--out', file])
  t.equal(out.code, 0, out.stderr)
  t.match(out.stderr, /wrote \d+ lines to .*next\.ndjson \(seed 1, alex\.rivera's 2026-12, after a demo set ending 2026-11\)/)
  t.equal(readFileSync(file, 'utf8'), [...nextMonthLines(1, '2026-12', demoShowcaseFollows(1, '2026-11'))].join('\n') + '\n', 'the lines of the seed the server imports')

  const empty = await cli('src/cli/demo-data.ts', ['--next-month', '--import'], db.env)
  t.equal(empty.code, 1)
  t.match(empty.stderr, /the database has no demo data/)
  t.equal((await cli('src/cli/import.ts', [file], db.env)).code, 0)
  // --next-month alone imports, as --import says explicitly
  const imported = await cli('src/cli/demo-data.ts', ['--next-month'], db.env)
  t.equal(imported.code, 0, imported.stderr)
  t.match(imported.stdout, /imported 2027-01 for alex\.rivera: \d+ follows/, 'the month after the latest one the database holds')
  for (const args of [['--import'], ['--next-month', '--import', '--month', '2026-11'], ['--next-month', '--month', '2026-11'], ['--seed', '1']]) {
    const bad = await cli('src/cli/demo-data.ts', args, db.env)
    t.equal(bad.code, 2, args.join(' '))
  }
})

t.test('the progress line: lines done, lines per second, elapsed time, time left', async (t) => {
  t.equal(clock(0), '0:00')
  t.equal(clock(75), '1:15')
  t.equal(clock(3725), '1:02:05')
  const validating = progressLine({ stage: 'validating', done: 250, total: 1000, pass: 1, passes: 4, line: 50_000, lines: 0 }, 50_000, 10)
  t.equal(validating, 'validating 1/4  25.0%  50,000 lines  5,000 lines/s  0:10 elapsed  ~0:30 left')
  const writing = progressLine({ stage: 'writing', done: 900, total: 1000, pass: 3, passes: 4, line: 120_000, lines: 200_000 }, 520_000, 65, 120)
  t.equal(writing, 'writing 3/4   90.0%  120,000/200,000 lines  8,000 lines/s  1:05 elapsed  ~0:07 left')
  t.equal(progressLine({ stage: 'writing', done: 1000, total: 1000, pass: 4, passes: 4, line: 10, lines: 10 }, 40, 2, 30).length, 29, 'fits the terminal')
})
