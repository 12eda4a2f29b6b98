// GET /report/{id}/friends/{friendId}: the interests behind a friend's two counts, under the rules of
// the other detail routes, resolved from what generation stored.
import t from '../tap.ts'
import { build, signedInUser } from '../helper.ts'
import { waitForStatus } from './report-wait.ts'
import { seedReportData } from './seed.ts'

interface Interest { id: string, name: string, share: number, relative: number, category?: string }
interface Friend { id: string, username: string, count: number, redFlagsCount: number }

t.test('a friend\'s shared interests and red flags', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  await seedReportData(app.db)
  const owner = await signedInUser(app)
  const other = await signedInUser(app)
  const created = await app.inject({
    method: 'POST', url: '/api/v1/report', headers: owner.auth,
    payload: { profiles: [{ source: 'ig', username: 'jdoe' }, { source: 'fb', username: 'john.doe' }] }
  })
  const id = created.json().id as string
  t.equal((await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: owner.auth })).statusCode, 202)
  t.equal((await waitForStatus(app, owner.auth, id, ['ready', 'failed'])).json().status, 'ready')
  const get = (url: string, auth = owner.auth) => app.inject({ url: `/api/v1/report/${id}${url}`, headers: auth })

  const tree = (await get('/interests?source=ig')).json().items as Array<{ interests: Interest[] }>
  const inTree = new Map(tree.flatMap((c) => c.interests).map((i) => [i.id, i]))
  const listed = (await get('/friends?source=ig&sortByRedFlags=false')).json().items as Friend[]
  const flagged = (await get('/friends?source=ig&sortByRedFlags=true')).json().items as Friend[]
  const everyone = new Map([...listed, ...flagged].map((f) => [f.id, f]))
  t.same([...everyone.keys()].sort(), ['p-2', 'p-3'])
  for (const f of everyone.values()) {
    const res = await get(`/friends/${f.id}?source=ig`)
    t.equal(res.statusCode, 200, res.body)
    const body = res.json() as { friend: Friend, common: Interest[], redFlags: Interest[] }
    t.same(body.friend, f, `${f.username}: the Friend object of the friends list`)
    t.equal(body.common.length, f.count, `${f.username}: as many shared interests as count`)
    t.equal(body.redFlags.length, f.redFlagsCount, `${f.username}: as many red flags as redFlagsCount`)
    for (const i of body.common) {
      const own = inTree.get(i.id)!
      t.same([i.share, i.relative, i.category], [own.share, own.relative, own.category], `${i.name}: the profile's numbers and badge`)
    }
  }

  // bob follows boxingdaily only: Boxing is shared (the profile's share) and his red flag (all of his)
  const bob = (await get('/friends/p-3')).json()
  t.same(bob.common.map((i: Interest) => [i.name, i.category]), [['Boxing', 'Violence']], 'source defaults to the first profile')
  t.same(bob.redFlags, [{ id: 'i-boxing', name: 'Boxing', share: 1, relative: 1, unactive: false, category: 'Violence', source: 'ig' }])
  const alice = (await get('/friends/p-2?source=ig')).json()
  t.same([alice.common.map((i: Interest) => i.name), alice.redFlags], [['Tennis'], []])

  // the same access rules and errors as GET /report/{id}/friends
  t.same([(await get('/friends/p-3', other.auth)).statusCode], [403], "another user's report")
  t.equal((await app.inject({ url: `/api/v1/report/${id}/friends/p-3` })).statusCode, 401)
  for (const [url, message] of [
    ['/friends/p-nobody', 'friend not found'],
    ['/friends/p-1', 'friend not found'], // the report's own profile
    ['/friends/p-3?source=fb', 'friend not found'], // not on that source's lists
    ['/friends/p-3?source=tt', 'the report has no profile on tt']
  ]) {
    const res = await get(url)
    t.has([res.statusCode, res.json()], [404, { code: 404, message }], url)
  }
  t.equal((await get('/friends/p-3?source=zz')).statusCode, 400)
  t.equal((await get('/friends/p-3?extra=1')).statusCode, 400)
  t.equal((await get(`/friends/${'x'.repeat(101)}`)).statusCode, 414, 'a friend id over the router\'s parameter length')

  // a report stored without the ids: the friend and its counts, no guessed lists
  await app.database.query("update reports set details = jsonb_set(details, '{ig}', (details -> 'ig') - 'friendInterests') where id = $1", [id])
  const old = await get('/friends/p-3?source=ig')
  t.equal(old.statusCode, 200, old.body)
  t.same(old.json(), { friend: everyone.get('p-3') })
})
