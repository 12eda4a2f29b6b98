// Profile data ingest (docs/architecture.md, Profile data and ingest): validate the whole input, then write it in one transaction, or
// write nothing. Used by `npm run import`, POST /ingest and the demo data at start-up.
import type { Database } from '../../db/client.ts'
import { IngestConflictError } from '../../errors.ts'
import { INGEST_LIMITS, type IngestResult } from '../../../schemas/ingest.ts'
import { fileSource, textSource, type LineSource } from './lines.ts'
import { validateSource, zeroCounts } from './validate.ts'
import { emptySummary, WRITE_PASSES, writeSource } from './write.ts'

export { MAX_ERRORS_SHOWN } from './validate.ts'
export type { LineSource } from './lines.ts'

export interface ImportProgress {
  stage: 'validating' | 'writing'
  /** bytes processed over every pass so far, out of total */
  done: number
  total: number
  /** the pass (1 = validation) and how many there are (known once validation is over) */
  pass: number
  passes: number
  /** lines read in this pass, and the input's lines (0 until validation has counted them) */
  line: number
  lines: number
}

export interface ImportOptions {
  /** import the valid lines even when some are invalid */
  skipInvalid?: boolean
  onProgress?: (progress: ImportProgress) => void
}

export interface ImportOutcome extends IngestResult {
  /** false when invalid lines stopped the import: nothing was written */
  written: boolean
}

const CONSTRAINT_VIOLATIONS = new Set(['23503', '23505'])

export function createIngestService ({ database }: { database: Database }) {
  async function importSource (source: LineSource, opts: ImportOptions = {}): Promise<ImportOutcome> {
    const size = source.totalBytes
    let passes = WRITE_PASSES.length + 1
    let lines = 0
    let emitted = -1
    const report = (stage: ImportProgress['stage'], pass: number, offset: number, line: number) => {
      if (stage === 'validating') lines = line
      if (!opts.onProgress || !size) return
      const total = passes * size
      const done = Math.min(total, pass * size + offset)
      // a few hundred updates per import, not one per line
      if (done !== total && done - emitted < total / 500) return
      emitted = done
      opts.onProgress({ stage, done, total, pass: pass + 1, passes, line, lines: stage === 'validating' ? 0 : lines })
    }

    const validation = await validateSource(database, source, (offset, line) => report('validating', 0, offset, line))
    const result = { replaced: validation.replaced, invalid: validation.invalid, errors: validation.errors }
    if (validation.invalid && !opts.skipInvalid) return { imported: zeroCounts(), summary: emptySummary(), ...result, written: false }

    const todo = WRITE_PASSES.flatMap((types, i) => types.some((t) => validation.counts[t] > 0) ? [i] : [])
    passes = todo.length + 1
    let pass = 1
    let summary
    try {
      summary = await writeSource(database, source, {
        bad: validation.bad,
        lineTypes: validation.lineTypes,
        digest: validation.digest,
        passes: todo,
        onPass: (n) => { pass = n + 1 },
        onOffset: (offset, line) => report('writing', pass, offset, line)
      })
    } catch (err) {
      const code = (err as { code?: unknown }).code
      if (typeof code === 'string' && CONSTRAINT_VIOLATIONS.has(code)) {
        throw new IngestConflictError('the profile data changed during the import; nothing was written', { cause: err })
      }
      throw err
    }
    return { imported: validation.counts, summary, ...result, written: true }
  }

  return {
    importSource,
    async importFile (path: string, opts: ImportOptions = {}): Promise<ImportOutcome> {
      return await importSource(await fileSource(path, INGEST_LIMITS.lineBytes), opts)
    },
    /** lines from a re-runnable generator (each call must yield the same lines) */
    async importLines (lines: () => Iterable<string> | AsyncIterable<string>, opts: ImportOptions = {}): Promise<ImportOutcome> {
      return await importSource(textSource(lines, INGEST_LIMITS.lineBytes), opts)
    }
  }
}

export type IngestService = ReturnType<typeof createIngestService>

/** "N invalid lines: line 3: ...; line 7: ..." with the first few reasons */
export function describeInvalid (outcome: Pick<IngestResult, 'invalid' | 'errors'>, shown = 5): string {
  const head = outcome.errors.slice(0, shown).map((e) => `line ${e.line}: ${e.reason}`).join('; ')
  const more = outcome.invalid > shown ? `; and ${outcome.invalid - shown} more` : ''
  return `${outcome.invalid} invalid line${outcome.invalid === 1 ? '' : 's'}: ${head}${more}`
}
