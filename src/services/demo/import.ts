// DEMO_DATA: an empty database gets the demo dataset at start, so that a new user can sign up and
// build a real report at once. Streamed straight from the generator through the normal ingest (same
// validation, one transaction): no temporary file.
import type { Database } from '../../db/client.ts'
import { currentMonth, demoDataLines } from './data.ts'
import { createIngestService, describeInvalid, type ImportOutcome } from '../ingest/index.ts'
import { latestMonth, monthAfter, nextMonthLines, type ShowcaseFollow } from './next-month.ts'
import { SHOWCASE } from './showcase.ts'

export const DEMO_SEED = 1

export interface DemoLog {
  info: (obj: Record<string, unknown>, msg: string) => void
}

export interface DemoImportOptions {
  seed?: number
  /** the clock, in ms since the epoch: the data's last month is the current one */
  now?: () => number
}

/** imports the demo dataset when the profiles table is empty; null when it was not */
export async function importDemoDataIfEmpty (database: Database, log: DemoLog, opts: DemoImportOptions = {}): Promise<ImportOutcome | null> {
  const [row] = await database.query<{ present: boolean }>('select exists (select 1 from profiles) as present')
  if (row?.present) return null
  const seed = opts.seed ?? DEMO_SEED
  const month = currentMonth(opts.now?.() ?? Date.now())
  log.info({ seed, month }, 'importing the demo dataset into the empty database')
  const outcome = await createIngestService({ database }).importLines(() => demoDataLines(seed, month))
  // the generator's own output: an invalid line is a bug, never something to import half of
  if (!outcome.written) throw new Error(`demo data: ${describeInvalid(outcome)}`)
  log.info({ imported: outcome.imported }, 'demo dataset imported')
  return outcome
}

/**
 * The showcase's next month (next-month.ts) imported into `database`: the month after the latest one
 * its follows there name, drawn from those follows, so each call adds one more month. Null when the
 * database has no follows of the showcase (the demo dataset is not there).
 */
export async function importNextMonth (database: Database, seed = DEMO_SEED): Promise<{ month: string, outcome: ImportOutcome } | null> {
  const follows = await database.query<ShowcaseFollow>(
    `select f.profile_id as "profileId", f.account_id as "accountId", f.since::text as since, f.until::text as until
       from follows f join profiles p on p.id = f.profile_id where lower(p.username) = $1`, [SHOWCASE.username])
  const last = latestMonth(follows)
  if (last === null) return null
  const month = monthAfter(last)
  const outcome = await createIngestService({ database }).importLines(() => nextMonthLines(seed, month, follows))
  if (!outcome.written) throw new Error(`demo data: ${describeInvalid(outcome)}`)
  return { month, outcome }
}
