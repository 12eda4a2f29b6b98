// Generated engine input for scenario 7: a subject with F follows and N friends of G follows each,
// over a fixed taxonomy (40 categories, 400 interests, 6 red-flag buckets) and a pool of accounts
// that grows with the size. Deterministic (mulberry32), 24 months of follows ending in MONTH.
import type { AccountDef, CategoryDef, FollowDef, InterestDef, ProfileDef, RedFlagDef, ReportInput } from '../../src/engine/index.ts'
import { mulberry32 } from '../../src/services/demo/data.ts'

export const MONTH = '2026-06'
const MONTHS = 24

export interface EngineSize { follows: number, friends: number, friendFollows: number }

export const FULL: EngineSize = { follows: 10_000, friends: 200, friendFollows: 1_000 }
export const TENTH: EngineSize = { follows: 1_000, friends: 20, friendFollows: 1_000 }

function date (month: number, day: number): string {
  const y = Math.floor(month / 12)
  return `${y}-${String(month - y * 12 + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}

export function engineInput (size: EngineSize, seed = 7): ReportInput {
  const rnd = mulberry32(seed)
  const int = (n: number) => Math.floor(rnd() * n)

  const categories: CategoryDef[] = Array.from({ length: 40 }, (_, i) => ({ id: `c-${i}`, name: `Category ${i}`, synthetic: i % 10 === 9 }))
  const redFlags: RedFlagDef[] = Array.from({ length: 6 }, (_, i) => ({ id: `rf-${i}`, label: `Red flag ${i}` }))
  const interests: InterestDef[] = Array.from({ length: 400 }, (_, i) => ({
    id: `i-${i}`, name: `Interest ${i}`, categoryId: `c-${i % 40}`, redFlagId: i % 37 === 0 ? `rf-${i % 6}` : null
  }))
  // twice as many accounts as the subject follows: friends overlap with the subject and each other
  const pool = size.follows * 2
  const accounts: AccountDef[] = Array.from({ length: pool }, (_, i) => {
    const k = int(10) === 0 ? 0 : 1 + int(3) // a few accounts carry no interest
    const base = int(400)
    return {
      id: `a-${i}`,
      username: `account${i}`,
      fullname: `Account ${i}`,
      image: i % 3 === 0 ? null : `https://img.example/a${i}.png`,
      // interests clustered around one category, like real pages
      interests: Array.from({ length: k }, () => `i-${(base + 40 * int(3) + int(2)) % 400}`)
    }
  })
  const end = Math.floor(Number(MONTH.slice(0, 4)) * 12 + Number(MONTH.slice(5, 7)) - 1)
  const follows = (n: number): FollowDef[] => {
    const picked = new Set<number>()
    while (picked.size < n) picked.add(int(pool))
    return [...picked].map((a) => {
      const start = end - MONTHS + 1 + int(MONTHS)
      const ends = int(5) === 0 && start < end
      return {
        accountId: `a-${a}`,
        since: date(start, 1 + int(28)),
        until: ends ? date(start + 1 + int(end - start), 1 + int(28)) : null
      }
    })
  }
  const profile = (id: string, n: number): ProfileDef => ({
    id, source: 'ig', username: id, fullname: `Profile ${id}`, image: null, link: `https://ig.example/${id}`, follows: follows(n)
  })
  return {
    dataset: { categories, redFlags, interests, accounts },
    month: MONTH,
    profiles: [{
      profile: profile('subject', size.follows),
      friends: Array.from({ length: size.friends }, (_, i) => profile(`friend-${i}`, size.friendFollows))
    }]
  }
}
