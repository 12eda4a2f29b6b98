// Engine input: plain data, shaped like the ingest records (docs/architecture.md, Profile data and ingest), so a database loader can fill
// it with a few SELECTs and a test can write it by hand. Output types come from schemas/report.ts,
// the single source of truth for what is served.
import type { Source } from '../../schemas/common.ts'
import type { Category, DiffItem, Friend, ReportItem, SourceProfile } from '../../schemas/report.ts'

export type { Source }

export interface CategoryDef {
  id: string
  name: string
  // synthetic categories are groupings of our own: their name is never shown as a badge
  synthetic: boolean
}

export interface RedFlagDef {
  id: string
  label: string
}

export interface InterestDef {
  id: string
  name: string
  categoryId: string
  redFlagId: string | null
}

export interface AccountDef {
  id: string
  username: string
  fullname: string
  image: string | null
  // interest ids; ids missing from the taxonomy are dropped (they would skew 1/k otherwise)
  interests: readonly string[]
}

// The taxonomy plus every account the profiles below follow. Reuse one Dataset object for all
// profiles of a report: the engine indexes it once (memoized per object).
export interface Dataset {
  categories: readonly CategoryDef[]
  redFlags: readonly RedFlagDef[]
  interests: readonly InterestDef[]
  accounts: readonly AccountDef[]
}

export interface FollowDef {
  accountId: string
  since: string // 'YYYY-MM-DD'
  until: string | null // 'YYYY-MM-DD', null = still following
}

export interface ProfileDef {
  id: string
  source: Source
  username: string
  fullname: string
  image: string | null
  link: string
  follows: readonly FollowDef[]
}

// The report month T: 'YYYY-MM' (or any string starting so, e.g. 'YYYY-MM-DD'), or a Date read in UTC.
// The engine never reads the clock: the caller decides which month "now" is.
export type MonthInput = string | Date

export interface ProfileInput {
  dataset: Dataset
  profile: ProfileDef
  // P's friends (normally on P's source), each with its own follows
  friends: readonly ProfileDef[]
  month: MonthInput
  // the report's sources with friends (see availableSources()); when omitted, only P's own
  // source is considered, which is right for a one-profile report
  availableSources?: readonly Source[]
}

export interface FriendLists {
  common: Friend[] // count > 0: count desc, redFlagsCount desc, username, id
  redFlags: Friend[] // redFlagsCount > 0: redFlagsCount desc, count desc, username, id
}

// What a report keeps per listed friend to name the interests behind its two counts.
export interface FriendInterestIds {
  common: string[] // I_T(P) ∩ I_T(F), in the report's interest order (4.2 on P's shares)
  redFlags: Array<[id: string, share: number, relative: number]> // F's red flags in I_T(F), 4.2 order on F's shares
}

export interface FriendInterests {
  byFriend: Record<string, FriendInterestIds>
  // name and bucket label of every red flag listed above (a friend's may be missing from P's tree)
  redFlagNames: Record<string, [name: string, label: string]>
}

export interface ProfileResult {
  item: ReportItem // the full ReportItem (friends: default sort, offset 0, limit 10)
  tree: Category[] // the whole category tree, for GET /report/{id}/interests
  friends: FriendLists // the full lists, for friendsPage()
  friendInterests: FriendInterests // the interests behind each listed friend's counts
  diffs: DiffItem[] // every month with a change, newest first, full new/lost lists
  sourceProfile: SourceProfile // P's profile fields, as friendsPage() wants them
}

export interface FriendsPageQuery {
  sortByRedFlags?: boolean
  offset: number
  limit: number
}
