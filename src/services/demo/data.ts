// The demo dataset: a pure function of (seed, month). The same seed and end month give the
// same lines, byte for byte, on any machine: a seeded PRNG (mulberry32) and no clock, locale or
// Math.random. Shape: 40 categories (4 synthetic), 400 interests clustered by category, 6 red-flag
// buckets carried by a few rare interests, 5,000 accounts, 2,000 profiles of about 1,400 people over the
// five sources, heavy-tailed follow counts, follows and unfollows over the 24 months ending in `month`
// with tastes that drift, and friendships mostly within a source. The first person is the showcase,
// Alex Rivera, on every source (src/services/demo/showcase.ts).
import type { Source } from '../../../schemas/common.ts'
import { day, daysIn, int, parseMonth, pad, pareto, pick, stream, weighted } from './random.ts'
import { ACCOUNT_STYLES, FIRST_NAMES, LAST_NAMES, LINKS, RED_FLAGS, TAXONOMY } from './taxonomy.ts'
import { redPageInterest, SHOWCASE, SHOWCASE_RED_PAGES, showcaseCategories, showcaseFollows, showcaseFriends, type DemoFollow } from './showcase.ts'

export { mulberry32 } from './random.ts'

export const DEMO_SIZES = { accounts: 5000, profiles: 2000, months: 24 } as const
const SOURCES: Source[] = ['ig', 'fb', 'tt', 'tw', 'li']
const ACCOUNT_SHARE: Record<Source, number> = { ig: 1500, fb: 1100, tt: 1000, tw: 800, li: 600 }
const PROFILE_SHARE: Record<Source, number> = { ig: 600, fb: 450, tt: 400, tw: 300, li: 250 }

/** the current UTC month, YYYY-MM (the CLI's default; the generator itself never reads a clock) */
export const currentMonth = (now = Date.now()) => new Date(now).toISOString().slice(0, 7)

// ---------------------------------------------------------------- the model

interface Interest { id: string, name: string, category: number, redFlag: string | null }
interface Account { id: string, source: Source, category: number }
interface Person { first: string, last: string, early: number[], late: number[], weights: number[], drift: number }
interface Profile { id: string, source: Source, username: string, person: number }

const slug = (s: string) => s.toLowerCase().replace(/&/g, 'and').replace(/[^a-z0-9]+/g, '')

function buildTaxonomy () {
  const categories = TAXONOMY.map(([name, synthetic], i) => ({ id: `c-${pad(i + 1)}-${slug(name)}`, name, synthetic }))
  const interests: Interest[] = []
  TAXONOMY.forEach(([, , names], c) => {
    for (const entry of names) {
      const [name, redFlag] = entry.split('|')
      interests.push({ id: `i-${pad(interests.length + 1, 3)}-${slug(name)}`, name, category: c, redFlag: redFlag ?? null })
    }
  })
  const byCategory = categories.map((_, c) => interests.filter((i) => i.category === c))
  return { categories, interests, byCategory }
}

/** every line of the dataset, in import order; month = the last month, YYYY-MM */
export function * demoDataLines (seed: number, month: string): Generator<string> {
  const end = parseMonth(month)
  const { categories, interests, byCategory } = buildTaxonomy()
  for (const c of categories) yield JSON.stringify({ type: 'category', id: c.id, name: c.name, synthetic: c.synthetic })
  for (const [id, label] of RED_FLAGS) yield JSON.stringify({ type: 'redflag', id, label })
  for (const i of interests) {
    yield JSON.stringify({ type: 'interest', id: i.id, name: i.name, categoryId: categories[i.category].id, redFlagId: i.redFlag })
  }
  const w: World = {
    seed, start: end - DEMO_SIZES.months + 1, end, categories, interests, byCategory,
    ...popularity(seed, categories, byCategory),
    accounts: [], interestsOf: [], accountsBy: new Map(), people: [], profiles: []
  }
  yield * accountLines(w)
  yield * profileLines(w)
  const network = showcaseNetwork(w)
  yield * followLines(w, network)
  yield * friendLines(w, network.friendPages)
}

/** the dataset as it is drawn: the taxonomy, then what each part adds */
interface World {
  seed: number
  /** the first and last month, as month numbers (random.ts) */
  start: number
  end: number
  categories: ReturnType<typeof buildTaxonomy>['categories']
  interests: Interest[]
  byCategory: Interest[][]
  categoryWeight: number[]
  interestWeights: number[][]
  accounts: Account[]
  /** the interest ids of each account, by account index */
  interestsOf: string[][]
  /** account indexes by source, and by `source/category` */
  accountsBy: Map<string, number[]>
  people: Person[]
  profiles: Profile[]
}

const favouritesOf = (w: World, source: Source) => showcaseCategories(w.categories.map((c) => c.name), source)

// Categories differ in popularity (Zipf over a seeded order); red-flag interests are rare.
function popularity (seed: number, categories: World['categories'], byCategory: Interest[][]) {
  const rng = stream(seed, 'taxonomy')
  const order = categories.map((_, i) => [i, rng()] as const).sort((x, y) => x[1] - y[1]).map(([i]) => i)
  const categoryWeight = new Array<number>(categories.length)
  order.forEach((c, rank) => { categoryWeight[c] = 1 / (rank + 1) ** 0.8 })
  const interestWeights = byCategory.map((list) => list.map((i, rank) => (i.redFlag ? 0.2 : 1) / (rank + 1) ** 0.7))
  return { categoryWeight, interestWeights }
}

// Accounts: pages about one category, with 1 to 3 interests (a few have none). The first few of
// each source are the red-flag pages the showcase follows.
function * accountLines (w: World): Generator<string> {
  const { seed, interests, byCategory, categoryWeight, interestWeights, accounts, interestsOf, accountsBy } = w
  const arng = stream(seed, 'accounts')
  const taken = new Set<string>()
  for (const source of SOURCES) {
    for (let n = 0; n < ACCOUNT_SHARE[source]; n++) {
      const red = n < SHOWCASE_RED_PAGES ? redPageInterest(interests, source, n) : null
      const category = red ? red.category : weighted(arng, categoryWeight)
      const draw = (c: number) => byCategory[c][weighted(arng, interestWeights[c])]
      const own = new Set<Interest>([red ?? draw(category)])
      if (!red && arng() < 0.35) own.add(draw(category))
      if (!red && arng() < 0.15) own.add(draw(weighted(arng, categoryWeight)))
      const list = [...own]
      const none = !red && arng() < 0.03
      const [uStyle, nStyle] = pick(arng, ACCOUNT_STYLES)
      let username = uStyle.replace('{}', slug(list[0].name))
      while (taken.has(`${source}/${username}`)) username = `${uStyle.replace('{}', slug(list[0].name))}${int(arng, 900) + 100}`
      taken.add(`${source}/${username}`)
      const id = `a-${pad(accounts.length + 1, 4)}`
      accounts.push({ id, source, category })
      interestsOf.push(none ? [] : list.map((i) => i.id))
      for (const key of [source, `${source}/${category}`]) {
        let list = accountsBy.get(key)
        if (!list) accountsBy.set(key, list = [])
        list.push(accounts.length - 1)
      }
      yield JSON.stringify({
        type: 'account', id, source, username, fullname: nStyle.replace('{}', list[0].name),
        image: arng() < 0.85 ? `https://img.example.com/a/${id}.jpg` : null,
        interests: none ? [] : list.map((i) => i.id)
      })
    }
  }
}

// People: 1 to 5 profiles each, on distinct sources; tastes shared by their profiles, drifting once.
function * profileLines (w: World): Generator<string> {
  const { seed, start, categories, categoryWeight, people, profiles } = w
  const favourites = (source: Source) => favouritesOf(w, source)
  const prng = stream(seed, 'people')
  const left = { ...PROFILE_SHARE }
  const usernames = new Set<string>()
  people.push({ first: SHOWCASE.first, last: SHOWCASE.last, early: favourites('ig').slice(0, 5), late: favourites('ig').slice(5), weights: [], drift: start })
  for (const source of SOURCES) {
    const id = `p-${pad(profiles.length + 1, 4)}`
    profiles.push({ id, source, username: SHOWCASE.username, person: 0 })
    usernames.add(`${source}/${SHOWCASE.username}`)
    left[source]--
    yield JSON.stringify({
      type: 'profile', id, source, username: SHOWCASE.username, fullname: SHOWCASE.fullname,
      image: `https://img.example.com/p/${id}.jpg`, link: LINKS[source](SHOWCASE.username)
    })
  }
  while (profiles.length < DEMO_SIZES.profiles) {
    const k = 1 + weighted(prng, [55, 25, 12, 5, 3])
    const sources: Source[] = []
    for (let tries = 0; sources.length < k && tries < 20; tries++) {
      const s = SOURCES[weighted(prng, SOURCES.map((x) => left[x]))]
      if (left[s] > 0 && !sources.includes(s)) sources.push(s)
    }
    const favourites = 2 + int(prng, 3)
    const early: number[] = []
    while (early.length < favourites) {
      const c = weighted(prng, categoryWeight)
      if (!early.includes(c)) early.push(c)
    }
    const late = [...early]
    if (prng() < 0.6) {
      let c = weighted(prng, categoryWeight)
      while (late.includes(c)) c = (c + 1) % categories.length
      late[int(prng, late.length)] = c
    }
    const person: Person = {
      first: pick(prng, FIRST_NAMES), last: pick(prng, LAST_NAMES), early, late,
      weights: early.map((_, i) => 1 / (i + 1)), drift: start + 4 + int(prng, DEMO_SIZES.months - 6)
    }
    people.push(person)
    for (const source of sources.sort((x, y) => SOURCES.indexOf(x) - SOURCES.indexOf(y))) {
      const f = person.first.toLowerCase()
      const l = person.last.toLowerCase()
      const base = pick(prng, [`${f}${l}`, `${f}.${l}`, `${f}_${l}`, `${f[0]}${l}`, `${f}${l[0]}`, `${person.first}${person.last}`])
      let username = base
      while (usernames.has(`${source}/${username.toLowerCase()}`)) username = `${base}${int(prng, 9000) + 10}`
      usernames.add(`${source}/${username.toLowerCase()}`)
      left[source]--
      const id = `p-${pad(profiles.length + 1, 4)}`
      profiles.push({ id, source, username, person: people.length - 1 })
      yield JSON.stringify({
        type: 'profile', id, source, username, fullname: `${person.first} ${person.last}`,
        image: prng() < 0.8 ? `https://img.example.com/p/${id}.jpg` : null, link: LINKS[source](username)
      })
      if (profiles.length === DEMO_SIZES.profiles) break
    }
  }
}

// The showcase's follows, and its friends with the pages they follow on top of their own.
function showcaseNetwork (w: World) {
  const { seed, start, end, accounts, interestsOf, accountsBy, profiles } = w
  const favourites = (source: Source) => favouritesOf(w, source)
  const showcase = new Map<string, DemoFollow[]>()
  const friendPages = new Map<string, number[]>()
  for (const p of profiles.filter((x) => x.person === 0)) {
    const redPages = accountsBy.get(p.source)!.slice(0, SHOWCASE_RED_PAGES)
    const follows = showcaseFollows(p.source, {
      seed, start, end, categories: favourites(p.source), redPages,
      pool: (c) => accountsBy.get(`${p.source}/${c}`) ?? [], categoryOf: (a) => accounts[a].category, interestsOf: (a) => interestsOf[a]
    })
    showcase.set(p.id, follows)
    const kept = follows.filter((f) => f.until === null && !redPages.includes(f.account)).map((f) => f.account)
    const others = profiles.filter((x) => x.source === p.source && x.person !== 0).map((x) => x.id)
    for (const [friend, pages] of showcaseFriends(p.source, seed, others, kept, redPages)) friendPages.set(`${p.id}/${friend}`, pages)
  }
  const extraPages = new Map<string, number[]>()
  for (const [pair, pages] of friendPages) extraPages.set(pair.split('/')[1], pages)
  return { showcase, friendPages, extraPages }
}

// Follows: heavy-tailed counts, mostly on the person's favourite categories of the time;
// follows of a category the person drifted away from are often dropped.
function * followLines (w: World, { showcase, extraPages }: ReturnType<typeof showcaseNetwork>): Generator<string> {
  const { seed, start, end, accounts, accountsBy, people, profiles } = w
  for (const p of profiles) {
    if (showcase.has(p.id)) {
      for (const f of showcase.get(p.id)!.sort((x, y) => x.since < y.since ? -1 : x.since > y.since ? 1 : x.account - y.account)) {
        yield JSON.stringify({ type: 'follow', profileId: p.id, accountId: accounts[f.account].id, since: f.since, until: f.until })
      }
      continue
    }
    const frng = stream(seed, `follows/${p.id}`)
    const person = people[p.person]
    const count = pareto(frng, 8, 1.3, 600)
    const first = frng() < 0.5 ? start : start + int(frng, 12)
    const all = accountsBy.get(p.source)!
    const chosen = new Set<number>()
    const follows: { account: number, since: string, until: string | null }[] = []
    for (let tries = 0; follows.length < count && tries < count * 4; tries++) {
      const since = first + int(frng, end - first + 1)
      const taste = since < person.drift ? person.early : person.late
      let account: number
      if (frng() < 0.75) {
        const pool = accountsBy.get(`${p.source}/${taste[weighted(frng, person.weights)]}`)
        if (!pool) continue
        account = pick(frng, pool)
      } else {
        account = pick(frng, all)
      }
      if (chosen.has(account)) continue
      chosen.add(account)
      const abandoned = since < person.drift && !person.late.includes(accounts[account].category) && person.early.includes(accounts[account].category)
      let until: string | null = null
      if (since < end && frng() < (abandoned ? 0.6 : 0.12)) {
        const from = abandoned ? Math.max(since + 1, person.drift) : since + 1
        const u = from + int(frng, end - from + 1)
        until = day(u, 1 + int(frng, daysIn(u)))
      }
      follows.push({ account, since: day(since, 1 + int(frng, daysIn(since))), until })
    }
    for (const account of extraPages.get(p.id) ?? []) {
      if (chosen.has(account)) continue
      chosen.add(account)
      const since = start + int(frng, end - start)
      follows.push({ account, since: day(since, 1 + int(frng, daysIn(since))), until: null })
    }
    follows.sort((x, y) => x.since < y.since ? -1 : x.since > y.since ? 1 : x.account - y.account)
    for (const f of follows) {
      yield JSON.stringify({ type: 'follow', profileId: p.id, accountId: accounts[f.account].id, since: f.since, until: f.until })
    }
  }
}

// Friendships: mostly within a source, often between people who share a favourite category.
function * friendLines (w: World, friendPages: Map<string, number[]>): Generator<string> {
  const { seed, people, profiles } = w
  const fr = stream(seed, 'friends')
  const bySource = new Map<Source, number[]>(SOURCES.map((s) => [s, []]))
  profiles.forEach((p, i) => bySource.get(p.source)!.push(i))
  const pairs = new Set<string>()
  for (const pair of friendPages.keys()) {
    const [x, y] = pair.split('/')
    const [a, b] = x < y ? [x, y] : [y, x]
    pairs.add(`${a}/${b}`)
    yield JSON.stringify({ type: 'friend', a, b })
  }
  for (let i = 0; i < profiles.length; i++) {
    const p = profiles[i]
    const degree = pareto(fr, 2, 1.8, 40)
    for (let n = 0, tries = 0; n < degree && tries < degree * 5; tries++) {
      const j = fr() < 0.85 ? pick(fr, bySource.get(p.source)!) : int(fr, profiles.length)
      const q = profiles[j]
      if (q.person === p.person) continue
      const alike = people[q.person].late.some((c) => people[p.person].late.includes(c))
      if (!alike && fr() < 0.5) continue
      const [a, b] = p.id < q.id ? [p.id, q.id] : [q.id, p.id]
      if (pairs.has(`${a}/${b}`)) continue
      pairs.add(`${a}/${b}`)
      n++
      yield JSON.stringify({ type: 'friend', a, b })
    }
  }
}
