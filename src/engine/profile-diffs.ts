// One profile's month-by-month changes alone (4.6): what GET /report/{id}/diffs serves for it, without
// the friends, the tree or the previews a whole ReportItem needs. The alert worker computes thousands
// of these per batch (docs/decisions/watches-and-alerts.md, Watches and alerts), so it pays only
// for the sweep.
import type { DiffItem } from '../../schemas/report.ts'
import { indexDataset } from './dataset.ts'
import { buildDiffs } from './diffs.ts'
import { toMonth } from './months.ts'
import { sweep } from './timeline.ts'
import type { Dataset, MonthInput, ProfileDef } from './types.ts'

export interface ProfileDiffsInput {
  dataset: Dataset
  profile: ProfileDef
  /** the report month T: `unactive` is relative to it, and no change after it is listed */
  month: MonthInput
}

/** every month with a change, newest first, full new/lost lists: computeProfile's `diffs` for the same input */
export function profileDiffs (input: ProfileDiffsInput): DiffItem[] {
  const index = indexDataset(input.dataset)
  const timeline = sweep(input.profile.follows, index, toMonth(input.month))
  return buildDiffs(timeline.changes, timeline.current, index, input.profile.source)
}

/** the interest ids of a dataset that have a red-flag bucket (the engine drops a red_flag_id it cannot resolve) */
export function redFlagInterestIds (dataset: Dataset): Set<string> {
  const index = indexDataset(dataset)
  const out = new Set<string>()
  for (const i of index.interestBySlot) if (i.redFlag !== null) out.add(i.id)
  return out
}
