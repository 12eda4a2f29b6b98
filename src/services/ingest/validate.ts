// Pass 1 of an import: the whole input is validated before anything is written. It streams the lines
// once, keeping only ids and the references to check (never whole records), then resolves the
// references that the input does not define against the database, in batches. A record whose parent
// is invalid is invalid too (a bad category makes its interests bad, their accounts, their follows),
// so that importing the good lines with skipInvalid can never break a foreign key.
import { createHash } from 'node:crypto'
import type { Database } from '../../db/client.ts'
import { RECORD_TYPES, type IngestLineError, type RecordType } from '../../../schemas/ingest.ts'
import { Interner, LineBytes, PairTable } from './compact.ts'
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
const TYPE_CODE = Object.fromEntries(RECORD_TYPES.map((t, i) => [t, i + 1])) as Record<RecordType, number>

export const zeroCounts = (): Counts => Object.fromEntries(RECORD_TYPES.map((t) => [t, 0])) as Counts

// Composite keys: NUL cannot occur in a valid id.
const SEP = '\u0000'
const quote = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s)

export async function validateSource (database: Database, source: LineSource, onOffset?: (offset: number, line: number) => void): Promise<Validation> {
  const bad = new Map<number, string>()
  const categories = new Map<string, number>()
  const redFlags = new Map<string, number>()
  const interests = new Map<string, { line: number, categoryId: string, redFlagId: string | null }>()
  const accounts = new Map<string, { line: number, interests: string[] }>()
  const profiles = new Map<string, { line: number, source: string, username: string }>()
  const profileNames = new Map<string, string>()
  // follows and friendships refer to profiles and accounts by interned number (see compact.ts)
  const profileIds = new Interner()
  const accountIds = new Interner()
  const follows = new PairTable()
  const friends = new PairTable()
  const lineTypes = new LineBytes()
  const digest = newDigest()

  // A record whose key came earlier replaces it (the last wins, as in docs/decisions.md, Ingest feeds): the earlier line is
  // forgotten here and skipped by the write passes (its type turns 0), so the database sees one
  // record per key, the last one, whatever the order of the write passes.
  let replaced = 0
  const supersede = (line: number) => {
    lineTypes.set(line, 0)
    replaced++
  }

  for await (const batch of source.open()) {
    updateDigest(digest, batch)
    for (const line of batch) {
      onOffset?.(line.offset, line.no)
      if (line.text === null) {
        bad.set(line.no, line.error ?? 'unreadable line')
        continue
      }
      const parsed = parseRecord(line.text)
      if (!parsed) continue
      if (parsed.reason !== undefined) {
        bad.set(line.no, parsed.reason)
        continue
      }
      const r = parsed.record
      const no = line.no
      switch (r.type) {
        case 'category': {
          const first = categories.get(r.id)
          if (first) supersede(first)
          categories.set(r.id, no)
          break
        }
        case 'redflag': {
          const first = redFlags.get(r.id)
          if (first) supersede(first)
          redFlags.set(r.id, no)
          break
        }
        case 'interest': {
          const first = interests.get(r.id)
          if (first) supersede(first.line)
          interests.set(r.id, { line: no, categoryId: r.categoryId, redFlagId: r.redFlagId ?? null })
          break
        }
        case 'account': {
          const first = accounts.get(r.id)
          if (first) supersede(first.line)
          accounts.set(r.id, { line: no, interests: r.interests })
          break
        }
        case 'profile': {
          // usernames are unique per source, case-insensitively (the lookup index of POST /report)
          const name = `${r.source}${SEP}${r.username.toLowerCase()}`
          const owner = profileNames.get(name)
          if (owner !== undefined && owner !== r.id) {
            bad.set(no, `duplicate username ${r.source}/${quote(r.username)} (first on line ${profiles.get(owner)!.line})`)
            continue
          }
          const first = profiles.get(r.id)
          if (first) {
            supersede(first.line)
            profileNames.delete(`${first.source}${SEP}${first.username.toLowerCase()}`)
          }
          profileNames.set(name, r.id)
          profiles.set(r.id, { line: no, source: r.source, username: r.username })
          break
        }
        case 'follow': {
          const first = follows.put(profileIds.intern(r.profileId), accountIds.intern(r.accountId), no)
          if (first) supersede(first)
          break
        }
        case 'friend': {
          // one key for both orders of a pair
          const a = profileIds.intern(r.a)
          const b = profileIds.intern(r.b)
          const first = a < b ? friends.put(a, b, no) : friends.put(b, a, no)
          if (first) supersede(first)
          break
        }
      }
      lineTypes.set(no, TYPE_CODE[r.type])
    }
  }
  profileNames.clear()

  // References, parents first, so that an invalid parent invalidates its children.
  const missing = (ids: Iterable<string>, defined: ReadonlyMap<string, unknown>) => {
    const out = new Set<string>()
    for (const id of ids) if (!defined.has(id)) out.add(id)
    return out
  }

  const categoryRefs = missing([...interests.values()].map((i) => i.categoryId), categories)
  const redFlagRefs = missing([...interests.values()].flatMap((i) => i.redFlagId === null ? [] : [i.redFlagId]), redFlags)
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

  const taken = await takenProfileNames(database, [...profiles].map(([id, p]) => ({ id, source: p.source, username: p.username })))
  for (const [id, dbId] of taken) {
    const p = profiles.get(id)!
    bad.set(p.line, `username ${p.source}/${quote(p.username)} belongs to profile ${quote(dbId)}`)
    profiles.delete(id)
  }

  // every profile and account a follow or friendship names: defined in the input or in the database?
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

  const errors = [...bad].sort((x, y) => x[0] - y[0]).slice(0, MAX_ERRORS_SHOWN).map(([line, reason]) => ({ line, reason }))
  return {
    counts: {
      category: categories.size,
      redflag: redFlags.size,
      interest: interests.size,
      account: accounts.size,
      profile: profiles.size,
      follow: follows.count,
      friend: friends.count
    },
    invalid: bad.size,
    errors,
    bad,
    lineTypes,
    digest: digest.digest('base64'),
    replaced
  }
}
