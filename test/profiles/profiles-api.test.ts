import t from '../tap.ts'
import type { FastifyInstance } from 'fastify'
import { profiles } from '../../src/db/schema/index.ts'
import { likePattern } from '../../src/routes/profiles/index.ts'
import { build, signedInUser } from '../helper.ts'
import { seedReportData } from '../reports/seed.ts'

type Hit = { source: string, username: string, fullname: string, image: string | null, link: string }

// one app for the file (starting one is the slow part)
const app: FastifyInstance = await build(t)

t.test('GET /api/v1/profiles', async (t) => {
  await seedReportData(app.db)
  // names with LIKE's special characters, and ordering cases
  await app.db.insert(profiles).values([
    { id: 'p-pct', source: 'tw', username: 'disc_50%', fullname: 'Fifty Percent', image: null, link: 'https://tw.example/disc' },
    { id: 'p-und', source: 'tw', username: 'discx50y', fullname: 'Not A Wildcard', image: null, link: 'https://tw.example/discx' },
    { id: 'p-bsl', source: 'li', username: 'back\\slash', fullname: 'Back Slash', image: null, link: 'https://li.example/bs' },
    { id: 'p-al2', source: 'tt', username: 'aalice', fullname: 'Another Alice', image: null, link: 'https://tt.example/aalice' }
  ])
  const u = await signedInUser(app)
  const search = async (qs: string, headers: Record<string, string> = u.auth) =>
    await app.inject({ url: `/api/v1/profiles?${qs}`, headers })
  const names = async (qs: string) => {
    const res = await search(qs)
    t.equal(res.statusCode, 200, res.body)
    return (res.json().items as Hit[]).map((h) => `${h.source}/${h.username}`)
  }

  t.test('401 without a valid Bearer token', async (t) => {
    const none = await search('q=jdoe', {})
    t.equal(none.statusCode, 401)
    t.has(none.json(), { code: 401, message: 'access denied' })
    const bad = await search('q=jdoe', { authorization: 'Bearer not-a-jwt' })
    t.equal(bad.statusCode, 401)
    const cookieOnly = await search('q=jdoe', { cookie: u.cookie })
    t.equal(cookieOnly.statusCode, 401, 'the session cookie alone is not a Bearer token')
  })

  t.test('matches username and full name, case-insensitively, by substring', async (t) => {
    const res = await search('q=JDOE')
    t.equal(res.statusCode, 200)
    t.same(res.json(), { items: [{ source: 'ig', username: 'JDoe', fullname: 'John Doe', image: 'https://img.example/p1.png', link: 'https://ig.example/jdoe' }], hasMore: false })
    t.same(await names('q=john'), ['ig/JDoe', 'fb/john.doe'], 'full name match on both; ordered by username')
    t.same(await names('q=oe'), ['ig/JDoe', 'fb/john.doe'], 'substring')
    t.same(await names('q=nobody-here'), [])
    const bob = (await search('q=bob')).json().items[0] as Hit
    t.equal(bob.image, null, 'a profile without an image answers null')
  })

  t.test('an exact match comes first, then by username', async (t) => {
    t.same(await names('q=alice'), ['ig/alice', 'tt/aalice'], 'exact username first although aalice sorts before it')
    t.same(await names('q=another%20alice'), ['tt/aalice'], 'exact full name')
    t.same(await names('q=a'), ['tt/aalice', 'ig/alice', 'li/back\\slash', 'tw/discx50y'], 'no exact match: by username')
  })

  t.test('source filter', async (t) => {
    t.same(await names('q=john&source=fb'), ['fb/john.doe'])
    t.same(await names('q=john&source=ig'), ['ig/JDoe'])
    t.same(await names('q=john&source=li'), [])
  })

  t.test('limit and offset', async (t) => {
    t.same(await names('q=o'), ['tt/aalice', 'ig/bob', 'tw/discx50y', 'ig/JDoe', 'fb/john.doe'])
    t.same(await names('q=o&limit=2'), ['tt/aalice', 'ig/bob'])
    t.same(await names('q=o&limit=1'), ['tt/aalice'])
    t.equal((await names('q=o&limit=50')).length, 5)
    t.same(await names('q=o&offset=2&limit=2'), ['tw/discx50y', 'ig/JDoe'], 'offset goes on where a page ended')
    t.same(await names('q=o&offset=5'), [], 'past the last match: an empty page')
    t.equal((await search('q=o&limit=4')).json().hasMore, true, 'a fifth match: hasMore')
    t.equal((await search('q=o&offset=3&limit=2')).json().hasMore, false, 'the last page')
  })

  t.test('LIKE wildcards are matched literally', async (t) => {
    t.same(await names('q=%25'), ['tw/disc_50%'], '% is a character, not "anything"')
    t.same(await names('q=_'), ['tw/disc_50%'], '_ is a character, not "any one character"')
    t.same(await names('q=c_5'), ['tw/disc_50%'], 'discx50y does not match c_5')
    t.same(await names('q=%5C'), ['li/back\\slash'], 'a backslash is a character too')
    t.same(await names('q=%25%25'), [])
    t.equal(likePattern('A_b%c\\'), '%a\\_b\\%c\\\\%')
  })

  t.test('400 on bad parameters', async (t) => {
    for (const qs of ['', 'q=', 'q=%20%20', `q=${'x'.repeat(101)}`, 'q=a&limit=0', 'q=a&limit=51', 'q=a&limit=x', 'q=a&source=xx', 'q=a&other=1']) {
      const res = await search(qs)
      t.equal(res.statusCode, 400, `${qs || '(no query)'}: ${res.body}`)
      t.equal(res.json().code, 400)
      t.type(res.json().message, 'string')
    }
  })
})

t.test('the dashboard is served at / and API 404s stay JSON', async (t) => {
  const index = await app.inject({ url: '/' })
  t.equal(index.statusCode, 200)
  t.match(index.headers['content-type'], /text\/html/)
  t.match(index.body, /<script type="module" src="\/app\.js"><\/script>/)
  t.match(index.headers['content-security-policy'], /default-src 'self'/, 'helmet headers on the page')
  const js = await app.inject({ url: '/app.js' })
  t.equal(js.statusCode, 200)
  t.match(js.headers['content-type'], /javascript/)
  const css = await app.inject({ url: '/styles.css' })
  t.equal(css.statusCode, 200)
  t.match(css.headers['content-type'], /text\/css/)

  for (const url of ['/api/v1/nothing-here', '/api/v1/', '/api/v1/report/x/y/z', '/no-such-file.js', '/../package.json', '/api/v1/../../package.json']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 404, url)
    t.has(res.json(), { code: 404, message: 'not found' }, url)
  }
  const post = await app.inject({ method: 'POST', url: '/api/v1/nothing-here', payload: {} })
  t.has(post.json(), { code: 404, message: 'not found' })
})
