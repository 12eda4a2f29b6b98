// Pass 1 of an import: the whole input is validated before anything is written. It streams the lines
// once, keeping only ids and the references to check (never whole records), then resolves the
// references that the input does not define against the database, in batches. A record whose parent
// is invalid is invalid too (a bad category makes its interests bad, their accounts, their follows),
// so that importing the good lines with skipInvalid can never break a foreign key.
import type { Database } from '../../db/client.ts'
import { RECORD_TYPES, type IngestLineError, type RecordType } from '../../../schemas/ingest.ts'
import type { LineSource } from './lines.ts'
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
}

export const zeroCounts = (): Counts => Object.fromEntries(RECORD_TYPES.map((t) => [t, 0])) as Counts

// Composite keys: NUL cannot occur in a valid id.
const SEP = '\u0000'
const pairKey = (a: string, b: string) => a < b ? `${a}${SEP}${b}` : `${b}${SEP}${a}`
const quote = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s)

export async function validateSource (database: Database, source: LineSource, onOffset?: (offset: number) => void): Promise<Validation> {
  const bad = new Map<number, string>()
  const categories = new Map<string, number>()
  const redFlags = new Map<string, number>()
  const interests = new Map<string, { line: number, categoryId: string, redFlagId: string | null }>()
  const accounts = new Map<string, { line: number, interests: string[] }>()
  const profiles = new Map<string, { line: number, source: string, username: string }>()
  const profileNames = new Map<string, string>()
  const follows = new Map<string, number>()
  const friends = new Map<string, number>()

  const duplicate = (line: number, what: string, first: number) => bad.set(line, `duplicate ${what} (first on line ${first})`)

  for await (const batch of source.open()) {
    for (const line of batch) {
      onOffset?.(line.offset)
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
          if (first) duplicate(no, `category ${quote(r.id)}`, first)
          else categories.set(r.id, no)
          break
        }
        case 'redflag': {
          const first = redFlags.get(r.id)
          if (first) duplicate(no, `redflag ${quote(r.id)}`, first)
          else redFlags.set(r.id, no)
          break
        }
        case 'interest': {
          const first = interests.get(r.id)
          if (first) duplicate(no, `interest ${quote(r.id)}`, first.line)
          else interests.set(r.id, { line: no, categoryId: r.categoryId, redFlagId: r.redFlagId ?? null })
          break
        }
        case 'account': {
          const first = accounts.get(r.id)
          if (first) duplicate(no, `account ${quote(r.id)}`, first.line)
          else accounts.set(r.id, { line: no, interests: r.interests })
          break
        }
        case 'profile': {
          const first = profiles.get(r.id)
          if (first) {
            duplicate(no, `profile ${quote(r.id)}`, first.line)
            break
          }
          // usernames are unique per source, case-insensitively (the lookup index of POST /report)
          const name = `${r.source}${SEP}${r.username.toLowerCase()}`
          const owner = profileNames.get(name)
          if (owner !== undefined) {
            duplicate(no, `username ${r.source}/${quote(r.username)}`, profiles.get(owner)!.line)
            break
          }
          profileNames.set(name, r.id)
          profiles.set(r.id, { line: no, source: r.source, username: r.username })
          break
        }
        case 'follow': {
          const key = `${r.profileId}${SEP}${r.accountId}`
          const first = follows.get(key)
          if (first) duplicate(no, `follow ${quote(r.profileId)} -> ${quote(r.accountId)}`, first)
          else follows.set(key, no)
          break
        }
        case 'friend': {
          const key = pairKey(r.a, r.b)
          const first = friends.get(key)
          if (first) duplicate(no, `friendship ${quote(r.a)} - ${quote(r.b)}`, first)
          else friends.set(key, no)
          break
        }
      }
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

  const profileRefs = new Set<string>()
  const accountRefs = new Set<string>()
  for (const key of follows.keys()) {
    const [profileId, accountId] = key.split(SEP)
    if (!profiles.has(profileId)) profileRefs.add(profileId)
    if (!accounts.has(accountId)) accountRefs.add(accountId)
  }
  for (const key of friends.keys()) {
    for (const id of key.split(SEP)) if (!profiles.has(id)) profileRefs.add(id)
  }
  const dbProfiles = await existingIds(database, 'profiles', profileRefs)
  const dbAccounts = await existingIds(database, 'accounts', accountRefs)
  profileRefs.clear()
  accountRefs.clear()
  const isProfile = (id: string) => profiles.has(id) || dbProfiles.has(id)
  for (const [key, line] of follows) {
    const [profileId, accountId] = key.split(SEP)
    let reason: string | undefined
    if (!isProfile(profileId)) reason = `unknown profileId ${quote(profileId)}`
    else if (!accounts.has(accountId) && !dbAccounts.has(accountId)) reason = `unknown accountId ${quote(accountId)}`
    if (reason) {
      bad.set(line, reason)
      follows.delete(key)
    }
  }
  for (const [key, line] of friends) {
    const unknown = key.split(SEP).find((id) => !isProfile(id))
    if (unknown !== undefined) {
      bad.set(line, `unknown profile ${quote(unknown)}`)
      friends.delete(key)
    }
  }

  const errors = [...bad].sort((x, y) => x[0] - y[0]).slice(0, MAX_ERRORS_SHOWN).map(([line, reason]) => ({ line, reason }))
  return {
    counts: {
      category: categories.size,
      redflag: redFlags.size,
      interest: interests.size,
      account: accounts.size,
      profile: profiles.size,
      follow: follows.size,
      friend: friends.size
    },
    invalid: bad.size,
    errors,
    bad
  }
}
