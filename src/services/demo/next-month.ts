// The showcase's next month (README, Run it): a later month of follows for alex.rivera on
// every network, so that a watch on the showcase's report raises an alert at once
// (docs/decisions/watches-and-alerts.md, Watches and alerts: a month later than the one a watch has
// seen). Each network gets new pages that bring interests Alex does not have yet (a red-flag one on
// every other network, where the taxonomy has one left), and one page unfollowed whose interests no
// other page gives, so the month has new and lost interests both. A pure function of the seed, the
// month and the follows it starts from: those of the demo set (`demoShowcaseFollows`) or those a
// database holds (the import). The lines are self-contained (taxonomy, the accounts they name, the
// showcase's profiles, then the follows): valid on their own, and upserts that change nothing but
// the follows when the demo set is already there.
import type { Source } from '../../../schemas/common.ts'
import { SHOWCASE } from './showcase.ts'
import { day, daysIn, int, parseMonth, pad, stream } from './random.ts'
import { demoDataLines } from './data.ts'
import { SOURCES } from './world.ts'

const NEW_PAGES = 2

export interface ShowcaseFollow { profileId: string, accountId: string, since: string, until: string | null }

interface CatalogAccount { id: string, source: Source, interests: string[], line: string }

/** the records the next month's lines draw on: they depend on the seed only, never on the month */
interface Catalog {
  taxonomy: string[]
  redFlagInterests: Set<string>
  accounts: CatalogAccount[]
  profiles: Array<{ id: string, source: Source, line: string }>
}

type Rec = Record<string, unknown>

/** the demo set's records up to the first follow, and the showcase's follows when `month` is given */
function readDemo (seed: number, month: string, withFollows: boolean): { catalog: Catalog, follows: ShowcaseFollow[] } {
  const catalog: Catalog = { taxonomy: [], redFlagInterests: new Set(), accounts: [], profiles: [] }
  const follows: ShowcaseFollow[] = []
  for (const line of demoDataLines(seed, month)) {
    const r = JSON.parse(line) as Rec
    if (r.type === 'category' || r.type === 'redflag') catalog.taxonomy.push(line)
    else if (r.type === 'interest') {
      catalog.taxonomy.push(line)
      if (r.redFlagId !== null) catalog.redFlagInterests.add(r.id as string)
    } else if (r.type === 'account') catalog.accounts.push({ id: r.id as string, source: r.source as Source, interests: r.interests as string[], line })
    else if (r.type === 'profile') {
      if (r.username === SHOWCASE.username) catalog.profiles.push({ id: r.id as string, source: r.source as Source, line })
    } else if (r.type === 'follow') {
      // the showcase's follows come first (its profiles are the first ones): the rest is not needed
      if (!withFollows || !catalog.profiles.some((p) => p.id === r.profileId)) break
      follows.push({ profileId: r.profileId as string, accountId: r.accountId as string, since: r.since as string, until: r.until as string | null })
    } else break
  }
  return { catalog, follows }
}

/** the showcase's follows in the demo set whose last month is `month` (YYYY-MM) */
export function demoShowcaseFollows (seed: number, month: string): ShowcaseFollow[] {
  return readDemo(seed, month, true).follows
}

/** the profile ids of the showcase in the demo set */
export function showcaseProfileIds (seed: number): string[] {
  return readDemo(seed, '2000-01', false).catalog.profiles.map((p) => p.id)
}

/** the month after `month`, YYYY-MM */
export function monthAfter (month: string): string {
  const m = parseMonth(month) + 1
  return `${Math.floor(m / 12)}-${pad(m % 12 + 1)}`
}

/** the latest month the follows name (since, or until), YYYY-MM; null without follows */
export function latestMonth (follows: readonly ShowcaseFollow[]): string | null {
  let last: string | null = null
  for (const f of follows) {
    for (const d of [f.since, f.until]) if (d !== null && (last === null || d > last)) last = d
  }
  return last === null ? null : last.slice(0, 7)
}

/**
 * The lines of month `month` (YYYY-MM) for the showcase, starting from `follows` (its follows so
 * far, on any of its profiles). Deterministic: the same seed, month and follows give the same lines.
 */
export function * nextMonthLines (seed: number, month: string, follows: readonly ShowcaseFollow[]): Generator<string> {
  const { catalog } = readDemo(seed, month, false)
  const m = parseMonth(month)
  const interestsOf = new Map(catalog.accounts.map((a) => [a.id, a.interests]))
  const out: ShowcaseFollow[] = []
  for (const profile of catalog.profiles) {
    const rng = stream(seed, `next-month/${profile.source}/${month}`)
    const date = () => day(m, 1 + int(rng, daysIn(m)))
    const mine = follows.filter((f) => f.profileId === profile.id)
    const followed = new Set(mine.map((f) => f.accountId))
    const active = mine.filter((f) => f.until === null)
    const held = new Set(active.flatMap((f) => interestsOf.get(f.accountId) ?? []))
    const isRed = (id: string) => (interestsOf.get(id) ?? []).some((i) => catalog.redFlagInterests.has(i))

    // lost: a page whose interests no other page gives (else the month would lose nothing)
    const heldBy = new Map<string, number>()
    for (const f of active) for (const i of interestsOf.get(f.accountId) ?? []) heldBy.set(i, (heldBy.get(i) ?? 0) + 1)
    const keepable = active.filter((f) => !isRed(f.accountId))
    const alone = keepable.filter((f) => (interestsOf.get(f.accountId) ?? []).some((i) => heldBy.get(i) === 1))
    const from = alone.length ? alone : keepable
    const gone = from.length ? from[int(rng, from.length)] : null
    const lost = new Set(gone ? interestsOf.get(gone.accountId) ?? [] : [])
    if (gone) out.push({ ...gone, until: date() })

    // new: pages of this network not followed before, bringing an interest not held (nor one just lost)
    const fresh = catalog.accounts.filter((a) => a.source === profile.source && !followed.has(a.id) &&
      a.interests.some((i) => !held.has(i)) && !a.interests.some((i) => lost.has(i)))
    const chosen: string[] = []
    const take = (pool: CatalogAccount[]) => {
      const left = pool.filter((a) => !chosen.includes(a.id))
      if (left.length) chosen.push(left[int(rng, left.length)].id)
    }
    if (SOURCES.indexOf(profile.source) % 2 === 0) take(fresh.filter((a) => a.interests.some((i) => catalog.redFlagInterests.has(i) && !held.has(i))))
    for (let k = 0; k < NEW_PAGES; k++) take(fresh.filter((a) => !isRed(a.id)))
    for (const accountId of chosen) out.push({ profileId: profile.id, accountId, since: date(), until: null })
  }

  yield * catalog.taxonomy
  const named = new Set(out.map((f) => f.accountId))
  for (const a of catalog.accounts) if (named.has(a.id)) yield a.line
  for (const p of catalog.profiles) yield p.line
  for (const f of out) yield JSON.stringify({ type: 'follow', profileId: f.profileId, accountId: f.accountId, since: f.since, until: f.until })
}
