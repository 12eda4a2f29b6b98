// The showcase person of the demo dataset: Alex Rivera, `alex.rivera` on every network, the first
// search to try (README, Run it).
// Built to show every part of a report at once: many interests over several
// categories with a few red flags, friends with interests in common and friends with red flags, and
// 24 months of follows and unfollows with changes in nearly every month. Deterministic like the rest
// of the dataset (its own seeded streams), whatever the seed.
import type { Source } from '../../../schemas/common.ts'
import { day, daysIn, int, pick, stream } from './random.ts'

export const SHOWCASE = { username: 'alex.rivera', fullname: 'Alex Rivera', first: 'Alex', last: 'Rivera' } as const
/** the first accounts of each network are red-flag pages the showcase follows (so every seed has them) */
export const SHOWCASE_RED_PAGES = 2
const NEW_FOLLOWS_PER_MONTH = 4
const WINDOW = 5 // categories in favour at a time; the window slides by one every WINDOW months
const FRIENDS = { red: 4, common: 8 }
const SHARED_PAGES = 3 // pages of Alex's a common-interest friend follows too

// A different mix per network, as a person's feeds differ: ten categories, in the order tastes move through them.
const CATEGORIES: Record<Source, string[]> = {
  ig: ['Photography', 'Travel', 'Food & Drink', 'Fashion', 'Fitness', 'Art & Design', 'Music', 'Nature', 'Beauty', 'Pets'],
  fb: ['Parenting', 'News', 'Home & Garden', 'Cars', 'Sport', 'Food & Drink', 'History', 'Politics', 'Humor', 'Religion'],
  tt: ['Dance', 'Humor', 'Gaming', 'Music', 'Beauty', 'Anime & Comics', 'Fitness', 'Pets', 'Celebrities', 'Movies & TV'],
  tw: ['News', 'Technology', 'Politics', 'Crypto', 'Science', 'Sport', 'Finance', 'Humor', 'Books', 'Business'],
  li: ['Business', 'Careers', 'Technology', 'Education', 'Finance', 'Science', 'Architecture', 'Books', 'Health', 'Travel']
}
const SOURCES = Object.keys(CATEGORIES) as Source[]

/** the showcase's categories on a network, as indexes into the taxonomy */
export function showcaseCategories (categoryNames: readonly string[], source: Source): number[] {
  return CATEGORIES[source].map((name) => {
    const i = categoryNames.indexOf(name)
    if (i === -1) throw new Error(`showcase category ${name} is not in the taxonomy`)
    return i
  })
}

/** the red-flag interest of the n-th red page of a network (n < SHOWCASE_RED_PAGES) */
export function redPageInterest<T extends { redFlag: string | null }> (interests: readonly T[], source: Source, n: number): T {
  const red = interests.filter((i) => i.redFlag !== null)
  return red[(SOURCES.indexOf(source) * SHOWCASE_RED_PAGES + n) % red.length]
}

export interface DemoFollow { account: number, since: string, until: string | null }

export interface ShowcaseWorld {
  seed: number
  /** first and last month indexes of the dataset */
  start: number
  end: number
  categories: number[]
  /** accounts (indexes) about a category on the network */
  pool: (category: number) => number[]
  categoryOf: (account: number) => number
  interestsOf: (account: number) => readonly string[]
  redPages: number[]
}

/**
 * The showcase's follows on one network: four new pages a month from the categories in favour,
 * chosen to bring an interest it does not have yet where one can; from the third month one or two
 * pages unfollowed, those of categories out of favour first; the red pages followed for good in the
 * seventh and sixteenth months.
 */
export function showcaseFollows (source: Source, w: ShowcaseWorld): DemoFollow[] {
  const rng = stream(w.seed, `showcase/${source}`)
  const follows: Array<{ account: number, since: number, until: number | null }> = []
  const chosen = new Set<number>(w.redPages)
  for (let j = 0; j <= w.end - w.start; j++) {
    const m = w.start + j
    const favoured = w.categories.slice(Math.floor(j / WINDOW), Math.floor(j / WINDOW) + WINDOW)
    if (j >= 2) {
      const old = follows.filter((f) => f.until === null && f.since < m && !w.redPages.includes(f.account))
      const drifted = old.filter((f) => !favoured.includes(w.categoryOf(f.account)))
      for (let n = 1 + int(rng, 2); n > 0; n--) {
        const from = drifted.length ? drifted : old
        if (!from.length) break
        const [gone] = from.splice(int(rng, from.length), 1)
        gone.until = m
        for (const list of [drifted, old]) if (list.includes(gone)) list.splice(list.indexOf(gone), 1)
      }
    }
    const current = new Set(follows.filter((f) => f.until === null).flatMap((f) => w.interestsOf(f.account)))
    for (let k = 0; k < NEW_FOLLOWS_PER_MONTH; k++) {
      const pool = w.pool(pick(rng, favoured))
      let found = -1
      for (let tries = 0; tries < 12 && pool.length; tries++) {
        const a = pick(rng, pool)
        if (chosen.has(a) || w.interestsOf(a).length === 0) continue
        found = a
        if (w.interestsOf(a).some((i) => !current.has(i))) break
      }
      if (found === -1) continue
      chosen.add(found)
      follows.push({ account: found, since: m, until: null })
      for (const i of w.interestsOf(found)) current.add(i)
    }
    if (j === 6) follows.push({ account: w.redPages[0], since: m, until: null })
    if (j === 15 && w.redPages[1] !== undefined) follows.push({ account: w.redPages[1], since: m, until: null })
  }
  const date = (m: number) => day(m, 1 + int(rng, daysIn(m)))
  return follows.map((f) => ({ account: f.account, since: date(f.since), until: f.until === null ? null : date(f.until) }))
}

/**
 * The showcase's friends on one network, from its other profiles there, and the pages each of them
 * follows on top of their own: a red page for the first few, some of the pages Alex still follows
 * for the others.
 */
export function showcaseFriends (source: Source, seed: number, candidates: readonly string[], kept: readonly number[], redPages: readonly number[]): Map<string, number[]> {
  const rng = stream(seed, `showcase/friends/${source}`)
  const pool = [...candidates]
  const extras = new Map<string, number[]>()
  for (let k = 0; k < FRIENDS.red + FRIENDS.common && pool.length; k++) {
    const [friend] = pool.splice(int(rng, pool.length), 1)
    const pages = k < FRIENDS.red
      ? [redPages[k % redPages.length]]
      : Array.from({ length: SHARED_PAGES }, () => pick(rng, kept))
    extras.set(friend, [...new Set(pages)])
  }
  return extras
}
