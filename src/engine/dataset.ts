// Lookup tables over a Dataset, built once per Dataset object: a report computes up to five profiles
// (and hundreds of friends) against the same taxonomy and accounts.
//
// Accounts are stored flat (compressed rows): account p's known, distinct interest slots are
// slots[slotStart[p] .. slotStart[p + 1]). Resolving a follow is then one Map lookup to a small
// integer and a walk over a typed array. The friends pass resolves every follow of every friend
// (200 x 1,000 in the benchmark); an object per account there costs three times as much, in cache
// misses, as the lookup itself (see docs/benchmarks.md, Engine).
import type { AccountDef, CategoryDef, Dataset, RedFlagDef } from './types.ts'

export interface IndexedInterest {
  slot: number // position in the dense arrays below: lets hot loops use typed arrays, not Sets
  id: string
  name: string
  category: CategoryDef
  redFlag: RedFlagDef | null
}

export interface DatasetIndex {
  interests: ReadonlyMap<string, IndexedInterest>
  interestBySlot: readonly IndexedInterest[]
  /** account id -> p, its position in accountDefs and slotStart */
  accountPos: ReadonlyMap<string, number>
  accountDefs: readonly AccountDef[]
  slotStart: Int32Array
  // known, distinct interests per account: k = slotStart[p + 1] - slotStart[p] is what each follow spreads over
  slots: Int32Array
  redFlagBySlot: Uint8Array // 1 for red-flag interests
  /** interest ids of account p, made on first use (only the accounts a subject follows need them) */
  idsOf: Array<readonly string[] | undefined>
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

/** the known, distinct interest ids of account p, in the order the account lists them */
export function interestIdsOf (index: DatasetIndex, p: number): readonly string[] {
  let ids = index.idsOf[p]
  if (ids === undefined) {
    const out: string[] = []
    for (let j = index.slotStart[p]; j < index.slotStart[p + 1]; j++) out.push(index.interestBySlot[index.slots[j]].id)
    index.idsOf[p] = ids = out
  }
  return ids
}

function build (dataset: Dataset): DatasetIndex {
  const categories = new Map(dataset.categories.map((c) => [c.id, c]))
  const redFlags = new Map(dataset.redFlags.map((r) => [r.id, r]))
  const interests = new Map<string, IndexedInterest>()
  const interestBySlot: IndexedInterest[] = []
  for (const i of dataset.interests) {
    const category = categories.get(i.categoryId)
    // an interest without its category cannot be placed in the tree: the loader must send both
    if (category === undefined) continue
    const redFlag = i.redFlagId == null ? null : redFlags.get(i.redFlagId) ?? null
    const indexed = { slot: interests.size, id: i.id, name: i.name, category, redFlag }
    // a repeated id keeps its first slot (and, as a Map would, its last definition)
    const known = interests.get(i.id)
    if (known !== undefined) indexed.slot = known.slot
    else interestBySlot.push(indexed)
    interests.set(i.id, indexed)
    interestBySlot[indexed.slot] = indexed
  }
  const redFlagBySlot = new Uint8Array(interestBySlot.length)
  for (const i of interestBySlot) redFlagBySlot[i.slot] = i.redFlag === null ? 0 : 1

  const accounts = dataset.accounts
  const n = accounts.length
  const accountPos = new Map<string, number>()
  const slotStart = new Int32Array(n + 1)
  let slots = new Int32Array(Math.max(16, n * 2))
  let used = 0
  // seen[slot] === p + 1: account p already has this interest (ids may repeat in its list)
  const seen = new Int32Array(interestBySlot.length)
  for (let p = 0; p < n; p++) {
    const a = accounts[p]
    // a repeated account id: the last definition wins, as a Map would have it
    accountPos.set(a.id, p)
    slotStart[p] = used
    for (const id of a.interests) {
      const i = interests.get(id)
      if (i === undefined || seen[i.slot] === p + 1) continue
      seen[i.slot] = p + 1
      if (used === slots.length) {
        const grown = new Int32Array(slots.length * 2)
        grown.set(slots)
        slots = grown
      }
      slots[used++] = i.slot
    }
  }
  slotStart[n] = used
  return {
    interests,
    interestBySlot,
    accountPos,
    accountDefs: accounts,
    slotStart,
    slots: slots.subarray(0, used),
    redFlagBySlot,
    idsOf: new Array(n)
  }
}
