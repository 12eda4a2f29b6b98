// src/services/caches/view-cache.ts used without a loader, as the kept results of a computation (the cookie
// signer, verified tokens): at most maxEntries entries, the oldest-set one out first; setting a key
// again makes it the newest. Its use as a view of rows is tested in test/scale-out/views.test.ts.
import t from '../tap.ts'
import { createViewCache } from '../../src/services/caches/view-cache.ts'

const memo = (maxEntries: number) => createViewCache<number>({ maxEntries, ttlMs: Infinity })

t.test('the bound holds and the oldest goes first', async (t) => {
  const m = memo(3)
  for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) m.set(k, i)
  t.equal(m.size, 3)
  t.equal(m.peek('a'), undefined, 'the oldest went')
  t.same(['b', 'c', 'd'].map((k) => m.peek(k)), [1, 2, 3])
})

t.test('setting a key again makes it the newest and keeps one entry for it', async (t) => {
  const m = memo(3)
  m.set('a', 1)
  m.set('b', 2)
  m.set('c', 3)
  m.set('a', 10)
  t.equal(m.size, 3, 'no second entry for a')
  m.set('d', 4)
  t.equal(m.peek('b'), undefined, 'b was the oldest then')
  t.equal(m.peek('a'), 10)
  t.equal(m.peek('d'), 4)
})

t.test('an entry lives ttlMs at most; without a loader, get refuses', async (t) => {
  let clock = 0
  const m = createViewCache<number>({ maxEntries: 3, ttlMs: 1000, now: () => clock })
  m.set('a', 1)
  clock = 999
  t.equal(m.peek('a'), 1)
  clock = 1000
  t.equal(m.peek('a'), undefined, 'expired')
  await t.rejects(m.get('a'), /no loader/)
})

t.test('entries that never expire are found without reading the clock', async (t) => {
  let reads = 0
  const m = createViewCache<number>({ maxEntries: 3, ttlMs: Infinity, now: () => { reads++; return 0 } })
  m.set('a', 1)
  const afterSet = reads
  for (let i = 0; i < 5; i++) t.equal(m.peek('a'), 1)
  t.equal(reads, afterSet, 'no clock read on a hit')
})
