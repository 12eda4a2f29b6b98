// Pass 1 of an import: the whole input is validated before anything is written. It streams the lines
// once, keeping only ids and the references to check (collect.ts), then resolves the references that
// the input does not define against the database, in batches, one record type after another. A
// record whose parent is invalid is invalid too (a bad category makes its interests bad, their
// accounts, their follows), so that importing the good lines with skipInvalid can never break a
// foreign key.
import { createHash } from 'node:crypto'
import type { Database } from '../../db/client.ts'
import { RECORD_TYPES, type IngestLineError, type RecordType } from '../../../schemas/ingest.ts'
import { quote, RecordIndex } from './collect.ts'
import type { LineBytes } from './compact.ts'
import type { Line, LineSource } from './lines.ts'
import { existingIds, takenProfileNames } from './lookup.ts'
import { parseRecord } from './records.ts'

export const MAX_ERRORS_SHOWN = 20

export type Counts = Record<RecordType, number>

export interface Validation {
  /** valid records per type */
  counts: Counts
  /** number of invalid lines */
  invalid: number
  /** the first invalid lines, in line order */
  errors: IngestLineError[]
  /** line numbers of every invalid line */
  bad: ReadonlyMap<number, string>
  /** the record type of each line to write (RECORD_TYPES index + 1; 0 for blank, unparseable or replaced lines) */
  lineTypes: LineBytes
  /** digest of the input's lines: a write pass that reads other lines is refused */
  digest: string
  /** valid records replaced by a later record of the same key */
  replaced: number
}

/** the digest of a batch of lines, the same in every pass over the same input */
export function updateDigest (hash: ReturnType<typeof createHash>, batch: readonly Line[]): void {
  hash.update(batch.map((l) => l.text ?? `\u0000${l.error ?? ''}`).join('\n'))
  hash.update('\n')
}

export const newDigest = () => createHash('sha1')

export const zeroCounts = (): Counts => Object.fromEntries(RECORD_TYPES.map((t) => [t, 0])) as Counts

export async function validateSource (database: Database, source: LineSource, onOffset?: (offset: number, line: number) => void): Promise<Validation> {
  const index = new RecordIndex()
  const digest = newDigest()
  for await (const batch of source.open()) {
    updateDigest(digest, batch)
    for (const line of batch) {
      onOffset?.(line.offset, line.no)
      index.add(line, line.text === null ? null : parseRecord(line.text))
    }
  }
  index.done()

  // References, parents first, so that an invalid parent invalidates its children.
  await checkInterests(database, index)
  await checkAccounts(database, index)
  await checkProfiles(database, index)
  await checkFollowsAndFriends(database, index)

  const { bad } = index
  const errors = [...bad].sort((x, y) => x[0] - y[0]).slice(0, MAX_ERRORS_SHOWN).map(([line, reason]) => ({ line, reason }))
  return {
    counts: {
      category: index.categories.size,
      redflag: index.redFlags.size,
      interest: index.interests.size,
      account: index.accounts.size,
      profile: index.profiles.size,
      follow: index.follows.count,
      friend: index.friends.count
    },
    invalid: bad.size,
    errors,
    bad,
    lineTypes: index.lineTypes,
    digest: digest.digest('base64'),
    replaced: index.replaced
  }
}

/** the ids that the input does not define */
function undefinedIn (ids: Iterable<string>, defined: ReadonlyMap<string, unknown>): Set<string> {
  const out = new Set<string>()
  for (const id of ids) if (!defined.has(id)) out.add(id)
  return out
}

/** an interest's category and red flag: in the input or in the database */
async function checkInterests (database: Database, { interests, categories, redFlags, bad }: RecordIndex): Promise<void> {
  const categoryRefs = undefinedIn([...interests.values()].map((i) => i.categoryId), categories)
  const redFlagRefs = undefinedIn([...interests.values()].flatMap((i) => i.redFlagId === null ? [] : [i.redFlagId]), redFlags)
  const dbCategories = await existingIds(database, 'categories', categoryRefs)
  const dbRedFlags = await existingIds(database, 'red_flags', redFlagRefs)
  for (const [id, i] of interests) {
    let reason: string | undefined
    if (!categories.has(i.categoryId) && !dbCategories.has(i.categoryId)) reason = `unknown categoryId ${quote(i.categoryId)}`
    else if (i.redFlagId !== null && !redFlags.has(i.redFlagId) && !dbRedFlags.has(i.redFlagId)) reason = `unknown redFlagId ${quote(i.redFlagId)}`
    if (reason) {
      bad.set(i.line, reason)
      interests.delete(id)
    }
  }
}

/** every interest of an account: a valid one of the input, or one in the database */
async function checkAccounts (database: Database, { accounts, interests, bad }: RecordIndex): Promise<void> {
  const interestRefs = new Set<string>()
  for (const a of accounts.values()) for (const i of a.interests) if (!interests.has(i)) interestRefs.add(i)
  const dbInterests = await existingIds(database, 'interests', interestRefs)
  interestRefs.clear()
  for (const [id, a] of accounts) {
    const unknown = a.interests.find((i) => !interests.has(i) && !dbInterests.has(i))
    if (unknown !== undefined) {
      bad.set(a.line, `unknown interest ${quote(unknown)}`)
      accounts.delete(id)
    }
  }
}

/** a profile's username is not another stored profile's */
async function checkProfiles (database: Database, { profiles, bad }: RecordIndex): Promise<void> {
  const taken = await takenProfileNames(database, [...profiles].map(([id, p]) => ({ id, source: p.source, username: p.username })))
  for (const [id, dbId] of taken) {
    const p = profiles.get(id)!
    bad.set(p.line, `username ${p.source}/${quote(p.username)} belongs to profile ${quote(dbId)}`)
    profiles.delete(id)
  }
}

/** every profile and account a follow or friendship names: defined in the input or in the database */
async function checkFollowsAndFriends (database: Database, index: RecordIndex): Promise<void> {
  const { profiles, accounts, profileIds, accountIds, follows, friends, bad } = index
  const dbProfiles = await existingIds(database, 'profiles', profileIds.ids.filter((id) => !profiles.has(id)))
  const dbAccounts = await existingIds(database, 'accounts', accountIds.ids.filter((id) => !accounts.has(id)))
  const isProfile = Uint8Array.from(profileIds.ids, (id) => profiles.has(id) || dbProfiles.has(id) ? 1 : 0)
  const isAccount = Uint8Array.from(accountIds.ids, (id) => accounts.has(id) || dbAccounts.has(id) ? 1 : 0)
  dbProfiles.clear()
  dbAccounts.clear()
  for (let row = 0; row < follows.size; row++) {
    const p = follows.x[row]
    const a = follows.y[row]
    let reason: string | undefined
    if (!isProfile[p]) reason = `unknown profileId ${quote(profileIds.ids[p])}`
    else if (!isAccount[a]) reason = `unknown accountId ${quote(accountIds.ids[a])}`
    if (reason) {
      bad.set(follows.line[row], reason)
      follows.drop(row)
    }
  }
  for (let row = 0; row < friends.size; row++) {
    const [x, y] = [friends.x[row], friends.y[row]]
    if (isProfile[x] && isProfile[y]) continue
    // of two unknown ids, the one first in code-unit order is named
    const unknown = [x, y].filter((n) => !isProfile[n]).map((n) => profileIds.ids[n]).sort()[0]
    bad.set(friends.line[row], `unknown profile ${quote(unknown)}`)
    friends.drop(row)
  }
}
