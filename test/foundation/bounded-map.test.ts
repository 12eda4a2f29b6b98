// src/services/bounded-map.ts: at most `max` entries, the oldest-set one out first; setting a key again
// makes it the newest.
import t from 'tap'
import { boundedMap, prefixedKeys } from '../../src/services/bounded-map.ts'

t.test('the bound holds and the oldest goes first', async (t) => {
  const m = boundedMap<number>(3)
  for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) m.set(k, i)
  t.equal(m.size, 3)
  t.equal(m.get('a'), undefined, 'the oldest went')
  t.same(['b', 'c', 'd'].map((k) => m.get(k)), [1, 2, 3])
})

t.test('setting a key again makes it the newest and keeps one entry for it', async (t) => {
  const m = boundedMap<number>(3)
  m.set('a', 1)
  m.set('b', 2)
  m.set('c', 3)
  m.set('a', 10)
  t.equal(m.size, 3, 'no second entry for a')
  m.set('d', 4)
  t.equal(m.get('b'), undefined, 'b was the oldest then')
  t.equal(m.get('a'), 10)
  t.equal(m.get('d'), 4)
})

t.test('prefixedKeys: prefix + id, the same string each time for an id, the bound kept', async (t) => {
  const key = prefixedKeys('u:', 2)
  const a = key('a')
  t.equal(a, 'u:a')
  t.equal(key('a'), a)
  t.equal(key('b'), 'u:b')
  t.equal(key('c'), 'u:c', 'a third id pushes the oldest out')
  t.equal(key('a'), 'u:a', 'and it is made again, the same value')
  t.equal(prefixedKeys('refresh:')('127.0.0.1'), 'refresh:127.0.0.1')
})
