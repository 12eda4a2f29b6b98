// The report engine (docs/architecture.md, Report computation): pure and deterministic, no I/O and no clock. Services load the data,
// call computeProfile/computeReport, store the results, and page them with friendsPage.
export { computeProfile, computeReport, withAvailableSources, TOP_INTERESTS, PREVIEW_FRIENDS } from './report-item.ts'
export type { ReportInput } from './report-item.ts'
export { availableSources, friendsPage } from './friends.ts'
export { resolveFriendInterests } from './friend-detail.ts'
export { previewTree, PREVIEW_INTERESTS } from './category-tree.ts'
export { profileDiffs, redFlagInterestIds } from './profile-diffs.ts'
export type { ProfileDiffsInput } from './profile-diffs.ts'
export { previewDiffs, PREVIEW_DIFF_MONTHS, PREVIEW_DIFF_INTERESTS } from './diffs.ts'
export { dataMonthOf, formatMonth, parseMonth, reportMonth, toMonth } from './months.ts'
export { compareText } from './weights.ts'
export type {
  AccountDef, CategoryDef, Dataset, FollowDef, FriendInterestIds, FriendInterests, FriendLists, FriendsPageQuery, InterestDef, MonthInput,
  ProfileDef, ProfileInput, ProfileResult, RedFlagDef, Source
} from './types.ts'
