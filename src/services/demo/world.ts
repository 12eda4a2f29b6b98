// The demo dataset's model, which the generator (data.ts) draws part by part: the sizes, the
// taxonomy with its ids, the world each part adds to, and how popular categories and interests are.
import type { Source } from '../../../schemas/common.ts'
import { pad, stream } from './random.ts'
import { TAXONOMY } from './taxonomy.ts'
import { showcaseCategories } from './showcase.ts'

export const DEMO_SIZES = { accounts: 5000, profiles: 2000, months: 24 } as const
export const SOURCES: Source[] = ['ig', 'fb', 'tt', 'tw', 'li']
export const ACCOUNT_SHARE: Record<Source, number> = { ig: 1500, fb: 1100, tt: 1000, tw: 800, li: 600 }
export const PROFILE_SHARE: Record<Source, number> = { ig: 600, fb: 450, tt: 400, tw: 300, li: 250 }

export interface Interest { id: string, name: string, category: number, redFlag: string | null }
export interface Account { id: string, source: Source, category: number }
export interface Person { first: string, last: string, early: number[], late: number[], weights: number[], drift: number }
export interface Profile { id: string, source: Source, username: string, person: number }

export const slug = (s: string) => s.toLowerCase().replace(/&/g, 'and').replace(/[^a-z0-9]+/g, '')

export function buildTaxonomy () {
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

/** the dataset as it is drawn: the taxonomy, then what each part adds */
export interface World {
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

export const favouritesOf = (w: World, source: Source) => showcaseCategories(w.categories.map((c) => c.name), source)

// Categories differ in popularity (Zipf over a seeded order); red-flag interests are rare.
export function popularity (seed: number, categories: World['categories'], byCategory: Interest[][]) {
  const rng = stream(seed, 'taxonomy')
  const order = categories.map((_, i) => [i, rng()] as const).sort((x, y) => x[1] - y[1]).map(([i]) => i)
  const categoryWeight = new Array<number>(categories.length)
  order.forEach((c, rank) => { categoryWeight[c] = 1 / (rank + 1) ** 0.8 })
  const interestWeights = byCategory.map((list) => list.map((i, rank) => (i.redFlag ? 0.2 : 1) / (rank + 1) ** 0.7))
  return { categoryWeight, interestWeights }
}
