// Generated input for scenario 9 (alerts in bulk): N watched profiles whose data ends in month M
// (the seed, NDJSON for `npm run import`) and one import that gives each of them a follow in month
// M + 1 bringing interests it never had (NDJSON for POST /ingest). Deterministic (a seeded PRNG,
// the months given by the caller). Shape: the import scenario's taxonomy (40 categories, 6 red-flag
// buckets, 400 interests, every 37th a red flag); 3,000 accounts whose 1-3 interests are drawn from
// the first 300, the "old" ones; 500 accounts whose 1-2 interests are among the last 100, the "new"
// ones (a red flag among them every other account); profile p on source p mod 5 with 12-20
// follows of old accounts over the 12 months ending in M (one of them in M, none ending after M)
// and friends p +- 5 and p +- 10 (the same source). The import's follow of new account p mod 500 in
// M + 1 adds that account's interests and ends nothing: exactly one alert per watched profile, for
// M + 1, whose `new` lists those interests (docs/decisions/watches-and-alerts.md, Watches and
// alerts).
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { join } from 'node:path'
import { mulberry32 } from '../../src/services/demo/data.ts'
import { SOURCES, type Source } from '../../schemas/common.ts'
import type { AccountDef, Dataset, FollowDef, ProfileDef } from '../../src/engine/index.ts'

export const OLD_ACCOUNTS = 3000
export const NEW_ACCOUNTS = 500
const OLD_INTERESTS = 300
const INTERESTS = 400
const FRIEND_STEPS = [5, 10]

export interface WatchedProfile extends ProfileDef {
  /** the import's follow: in month M + 1, of an account whose interests the profile never had */
  newFollow: FollowDef
}

export interface AlertsInput {
  /** the seed's last month M, as the engine counts months (year * 12 + month - 1) */
  month: number
  seedFile: string
  seedLines: number
  importFile: string
  importLines: number
  /** the taxonomy and every account */
  dataset: Dataset
  profiles: WatchedProfile[]
  /** indices into profiles of p's friends */
  friendsOf: (p: number) => number[]
}

/** a date in an engine month: YYYY-MM-DD */
export function dateIn (month: number, day: number): string {
  const y = Math.floor(month / 12)
  return `${y}-${String(month - y * 12 + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}

async function writeLines (file: string, lines: Iterable<string>): Promise<number> {
  const out = createWriteStream(file)
  let n = 0
  let buf = ''
  for (const line of lines) {
    buf += line + '\n'
    n++
    if (buf.length >= 1 << 16) {
      if (!out.write(buf)) await once(out, 'drain')
      buf = ''
    }
  }
  out.end(buf)
  await once(out, 'finish')
  return n
}

/** the records, the profiles and the dataset, without writing anything (the files are these lines) */
export function alertsData (n: number, month: number, seed = 9) {
  const rnd = mulberry32(seed)
  const int = (k: number) => Math.floor(rnd() * k)
  const categories = Array.from({ length: 40 }, (_, c) => ({ id: `c-${c}`, name: `Category ${c}`, synthetic: c % 10 === 9 }))
  const redFlags = Array.from({ length: 6 }, (_, r) => ({ id: `rf-${r}`, label: `Red flag ${r}` }))
  const interests = Array.from({ length: INTERESTS }, (_, i) => ({
    id: `i-${i}`, name: `Interest ${i}`, categoryId: `c-${i % 40}`, redFlagId: i % 37 === 0 ? `rf-${i % 6}` : null
  }))
  const accounts: Array<AccountDef & { source: Source }> = []
  for (let a = 0; a < OLD_ACCOUNTS; a++) {
    const ids = new Set(Array.from({ length: 1 + int(3) }, () => `i-${int(OLD_INTERESTS)}`))
    accounts.push({ id: `a-${a}`, source: SOURCES[a % 5], username: `account${a}`, fullname: `Account ${a}`, image: a % 3 === 0 ? null : `https://img.example/a${a}.png`, interests: [...ids] })
  }
  // the red flags among the new interests are i-333 and i-370: every other new account carries one
  const NEW_RED = [333, 370]
  for (let b = 0; b < NEW_ACCOUNTS; b++) {
    const first = OLD_INTERESTS + (b % (INTERESTS - OLD_INTERESTS))
    const ids = new Set([`i-${first}`, ...(b % 2 === 0 ? [`i-${NEW_RED[(b >> 1) % 2]}`] : [])])
    accounts.push({ id: `b-${b}`, source: SOURCES[b % 5], username: `newaccount${b}`, fullname: `New account ${b}`, image: null, interests: [...ids] })
  }

  const profiles: WatchedProfile[] = []
  for (let p = 0; p < n; p++) {
    const source = SOURCES[p % 5]
    const follows: FollowDef[] = []
    const count = 12 + int(9)
    for (let j = 0; j < count; j++) {
      // distinct accounts: 7 is prime to OLD_ACCOUNTS
      const account = (p * 13 + j * 7) % OLD_ACCOUNTS
      // the first follow starts in M, so M is the profile's data month
      const start = j === 0 ? month : month - 11 + int(12)
      const until = j > 0 && start < month && int(5) === 0 ? dateIn(start + 1 + int(month - start), 1 + int(28)) : null
      follows.push({ accountId: `a-${account}`, since: dateIn(start, 1 + int(28)), until })
    }
    profiles.push({
      id: `w-${p}`,
      source,
      username: `watched${p}`,
      fullname: `Watched ${p}`,
      image: p % 4 === 0 ? null : `https://img.example/w${p}.png`,
      link: `https://${source}.example/watched${p}`,
      follows,
      newFollow: { accountId: `b-${p % NEW_ACCOUNTS}`, since: dateIn(month + 1, 1), until: null }
    })
  }
  // p's friends: p +- 5 and p +- 10 (mod n, the same source when n is a multiple of 5)
  const friendsOf = (p: number) => [...new Set(FRIEND_STEPS.flatMap((d) => [(p + d) % n, (p - d + n) % n]))].filter((f) => f !== p)
  const dataset: Dataset = {
    categories,
    redFlags,
    interests,
    accounts: accounts.map(({ source: _source, ...a }) => a)
  }

  function * seedLines (): Generator<string> {
    for (const c of categories) yield JSON.stringify({ type: 'category', ...c })
    for (const r of redFlags) yield JSON.stringify({ type: 'redflag', ...r })
    for (const i of interests) yield JSON.stringify({ type: 'interest', ...i })
    for (const a of accounts) yield JSON.stringify({ type: 'account', id: a.id, source: a.source, username: a.username, fullname: a.fullname, image: a.image, interests: a.interests })
    for (const p of profiles) yield JSON.stringify({ type: 'profile', id: p.id, source: p.source, username: p.username, fullname: p.fullname, image: p.image, link: p.link })
    for (const p of profiles) for (const f of p.follows) yield JSON.stringify({ type: 'follow', profileId: p.id, ...f })
    for (let p = 0; p < n; p++) {
      for (const d of FRIEND_STEPS) if (d < n && (p + d) % n !== p) yield JSON.stringify({ type: 'friend', a: `w-${p}`, b: `w-${(p + d) % n}` })
    }
  }
  function * importLines (): Generator<string> {
    for (const p of profiles) yield JSON.stringify({ type: 'follow', profileId: p.id, ...p.newFollow })
  }
  return { dataset, profiles, friendsOf, seedLines, importLines }
}

export async function writeAlertsInput (dir: string, n: number, month: number): Promise<AlertsInput> {
  const data = alertsData(n, month)
  const seedFile = join(dir, `alerts-seed-${n}.ndjson`)
  const importFile = join(dir, `alerts-import-${n}.ndjson`)
  const seedLines = await writeLines(seedFile, data.seedLines())
  const importLines = await writeLines(importFile, data.importLines())
  return { month, seedFile, seedLines, importFile, importLines, dataset: data.dataset, profiles: data.profiles, friendsOf: data.friendsOf }
}
