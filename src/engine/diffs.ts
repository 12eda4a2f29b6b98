// 4.6 month-by-month interest changes, and the preview of them a ReportItem carries (4.4).
import type { DiffItem, InterestDiffs } from '../../schemas/report.ts'
import type { DatasetIndex } from './dataset.ts'
import { interestFields } from './interest.ts'
import { formatMonth } from './months.ts'
import type { MonthChange } from './timeline.ts'
import type { Source } from './types.ts'
import { rankInterests, type MonthShares } from './weights.ts'

export const PREVIEW_DIFF_MONTHS = 6
export const PREVIEW_DIFF_INTERESTS = 5

// `changes` oldest first (as the sweep yields them); the result is newest first. A new interest is
// weighed in the month it appeared, a lost one in the last month it was there. `current` (I_T)
// decides `unactive`: the dashboard cannot open an interest the profile no longer has.
export function buildDiffs (
  changes: readonly MonthChange[], current: MonthShares, index: DatasetIndex, source: Source
): DiffItem[] {
  const out: DiffItem[] = []
  for (let i = changes.length - 1; i >= 0; i--) {
    const c = changes[i]
    const added = rankInterests(c.added, c.current, index.interests)
      .map((s) => interestFields(s, source, !current.shares.has(s.id)))
    const lost = rankInterests(c.lost, c.previous, index.interests)
      .map((s) => interestFields(s, source, !current.shares.has(s.id)))
    out.push({ date: formatMonth(c.month), new: added, lost, totalNew: added.length, totalLost: lost.length })
  }
  return out
}

// The 6 newest months, `new` and `lost` each cut to 5; the totals stay the full counts so the
// dashboard can say "and N more". Undefined when there is nothing to show (the field is omitted).
export function previewDiffs (diffs: readonly DiffItem[]): InterestDiffs | undefined {
  if (diffs.length === 0) return undefined
  return {
    items: diffs.slice(0, PREVIEW_DIFF_MONTHS).map((d) => ({
      ...d,
      new: d.new.slice(0, PREVIEW_DIFF_INTERESTS),
      lost: d.lost.slice(0, PREVIEW_DIFF_INTERESTS)
    }))
  }
}
