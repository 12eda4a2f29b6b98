// Lookup maps over a Dataset, built once per Dataset object: a report computes up to five profiles
// (and hundreds of friends) against the same taxonomy and accounts.
import type { AccountDef, CategoryDef, Dataset, RedFlagDef } from './types.ts'

export interface IndexedInterest {
  slot: number // position in the dense arrays below: lets hot loops use typed arrays, not Sets
  id: string
  name: string
  category: CategoryDef
  redFlag: RedFlagDef | null
}

export interface IndexedAccount {
  def: AccountDef
  // known, distinct interest ids: k = interests.length is what each follow spreads over
  interests: readonly string[]
  slots: Int32Array // the same interests, as slots
}

export interface DatasetIndex {
  interests: ReadonlyMap<string, IndexedInterest>
  accounts: ReadonlyMap<string, IndexedAccount>
  redFlagBySlot: Uint8Array // 1 for red-flag interests
}

const cache = new WeakMap<Dataset, DatasetIndex>()

export function indexDataset (dataset: Dataset): DatasetIndex {
  let index = cache.get(dataset)
  if (index === undefined) {
    index = build(dataset)
    cache.set(dataset, index)
  }
  return index
}

function build (dataset: Dataset): DatasetIndex {
  const categories = new Map(dataset.categories.map((c) => [c.id, c]))
  const redFlags = new Map(dataset.redFlags.map((r) => [r.id, r]))
  const interests = new Map<string, IndexedInterest>()
  for (const i of dataset.interests) {
    const category = categories.get(i.categoryId)
    // an interest without its category cannot be placed in the tree: the loader must send both
    if (category === undefined) continue
    const redFlag = i.redFlagId == null ? null : redFlags.get(i.redFlagId) ?? null
    interests.set(i.id, { slot: interests.size, id: i.id, name: i.name, category, redFlag })
  }
  const redFlagBySlot = new Uint8Array(interests.size)
  for (const i of interests.values()) redFlagBySlot[i.slot] = i.redFlag === null ? 0 : 1
  const accounts = new Map<string, IndexedAccount>()
  for (const a of dataset.accounts) {
    const known = [...new Set(a.interests)].filter((id) => interests.has(id))
    const slots = Int32Array.from(known, (id) => (interests.get(id) as IndexedInterest).slot)
    accounts.set(a.id, { def: a, interests: known, slots })
  }
  return { interests, accounts, redFlagBySlot }
}
