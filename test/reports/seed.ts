// A small hand-made dataset for the report tests, written straight into the profile tables.
import type { Db } from '../../src/db/client.ts'
import { accountInterests, accounts, categories, follows, friendships, interests, profiles, redFlags } from '../../src/db/schema/index.ts'

export const MONTH_START = (() => {
  const d = new Date()
  return (back: number) => {
    const x = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1))
    return x.toISOString().slice(0, 10)
  }
})()

export async function seedReportData (db: Db): Promise<void> {
  await db.insert(categories).values([
    { id: 'c-sport', name: 'Sport', synthetic: false },
    { id: 'c-music', name: 'Music', synthetic: false },
    { id: 'c-misc', name: 'Misc', synthetic: true }
  ])
  await db.insert(redFlags).values([{ id: 'rf-violence', label: 'Violence' }])
  await db.insert(interests).values([
    { id: 'i-boxing', name: 'Boxing', categoryId: 'c-sport', redFlagId: 'rf-violence' },
    { id: 'i-tennis', name: 'Tennis', categoryId: 'c-sport', redFlagId: null },
    { id: 'i-jazz', name: 'Jazz', categoryId: 'c-music', redFlagId: null },
    { id: 'i-memes', name: 'Memes', categoryId: 'c-misc', redFlagId: null }
  ])
  await db.insert(accounts).values([
    { id: 'a-1', source: 'ig', username: 'boxingdaily', fullname: 'Boxing Daily', image: 'https://img.example/a1.png' },
    { id: 'a-2', source: 'ig', username: 'tennisworld', fullname: 'Tennis World', image: null },
    { id: 'a-3', source: 'ig', username: 'jazzcats', fullname: 'Jazz Cats', image: null },
    { id: 'a-4', source: 'fb', username: 'memelord', fullname: 'Meme Lord', image: null }
  ])
  await db.insert(accountInterests).values([
    { accountId: 'a-1', interestId: 'i-boxing' },
    { accountId: 'a-2', interestId: 'i-tennis' },
    { accountId: 'a-3', interestId: 'i-jazz' },
    { accountId: 'a-3', interestId: 'i-tennis' },
    { accountId: 'a-4', interestId: 'i-memes' }
  ])
  await db.insert(profiles).values([
    { id: 'p-1', source: 'ig', username: 'JDoe', fullname: 'John Doe', image: 'https://img.example/p1.png', link: 'https://ig.example/jdoe' },
    { id: 'p-2', source: 'ig', username: 'alice', fullname: 'Alice', image: null, link: 'https://ig.example/alice' },
    { id: 'p-3', source: 'ig', username: 'bob', fullname: 'Bob', image: null, link: 'https://ig.example/bob' },
    { id: 'p-4', source: 'fb', username: 'john.doe', fullname: 'John Doe', image: null, link: 'https://fb.example/john.doe' }
  ])
  await db.insert(follows).values([
    { profileId: 'p-1', accountId: 'a-1', since: MONTH_START(5), until: null },
    { profileId: 'p-1', accountId: 'a-2', since: MONTH_START(3), until: null },
    { profileId: 'p-1', accountId: 'a-3', since: MONTH_START(4), until: MONTH_START(1) },
    { profileId: 'p-2', accountId: 'a-2', since: MONTH_START(2), until: null },
    { profileId: 'p-3', accountId: 'a-1', since: MONTH_START(2), until: null },
    { profileId: 'p-4', accountId: 'a-4', since: MONTH_START(2), until: null }
  ])
  await db.insert(friendships).values([{ a: 'p-1', b: 'p-2' }, { a: 'p-1', b: 'p-3' }])
}
