// The demo dataset's relations (drawn after accounts and profiles, data.ts): the showcase's
// follows and friends, everyone's follows over the months, and friendships.
import type { Source } from '../../../schemas/common.ts'
import { day, daysIn, int, pareto, pick, stream, weighted } from './random.ts'
import { SHOWCASE_RED_PAGES, showcaseFollows, showcaseFriends, type DemoFollow } from './showcase.ts'
import { favouritesOf, SOURCES, type World } from './world.ts'

// The showcase's follows, and its friends with the pages they follow on top of their own.
export function showcaseNetwork (w: World) {
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
export function * followLines (w: World, { showcase, extraPages }: ReturnType<typeof showcaseNetwork>): Generator<string> {
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
export function * friendLines (w: World, friendPages: Map<string, number[]>): Generator<string> {
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
