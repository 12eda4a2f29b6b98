// The demo dataset: a pure function of (seed, month). The same seed and end month give the
// same lines, byte for byte, on any machine: a seeded PRNG (mulberry32) and no clock, locale or
// Math.random. Shape: 40 categories (4 synthetic), 400 interests clustered by category, 6 red-flag
// buckets carried by a few rare interests, 5,000 accounts, 2,000 profiles of about 1,400 people over the
// five sources, heavy-tailed follow counts, follows and unfollows over the 24 months ending in `month`
// with tastes that drift, and friendships mostly within a source. The first person is the showcase,
// Alex Rivera, on every source (showcase.ts). The model and its sizes are world.ts; accounts and
// profiles are drawn here, follows and friendships in relations.ts.
import type { Source } from '../../../schemas/common.ts'
import { int, parseMonth, pad, pick, stream, weighted } from './random.ts'
import { ACCOUNT_STYLES, FIRST_NAMES, LAST_NAMES, LINKS, RED_FLAGS } from './taxonomy.ts'
import { redPageInterest, SHOWCASE, SHOWCASE_RED_PAGES } from './showcase.ts'
import { ACCOUNT_SHARE, buildTaxonomy, DEMO_SIZES, favouritesOf, popularity, PROFILE_SHARE, slug, SOURCES, type Interest, type Person, type World } from './world.ts'
import { followLines, friendLines, showcaseNetwork } from './relations.ts'

export { mulberry32 } from './random.ts'

/** the current UTC month, YYYY-MM (the CLI's default; the generator itself never reads a clock) */
export const currentMonth = (now = Date.now()) => new Date(now).toISOString().slice(0, 7)

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



// The demo has no pictures: an address on a host that does not exist would cost every avatar a
// failed fetch through the image proxy, and the dashboard draws initials anyway. Each record still
// makes the draw that says whether it has a picture, so every later draw of its stream, and the
// dataset's other values, stay as the seed gives them.
const noImage = (rng: () => number): null => { rng(); return null }

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
        image: noImage(arng),
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
      image: null, link: LINKS[source](SHOWCASE.username)
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
        image: noImage(prng), link: LINKS[source](username)
      })
      if (profiles.length === DEMO_SIZES.profiles) break
    }
  }
}

