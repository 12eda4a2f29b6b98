// GET /api/v1/images: a profile's or an account's image, fetched once by the service from a real
// image host on loopback (OUTBOUND_ALLOW_PRIVATE on), kept and served from this origin; refused for a
// URL the data does not hold, for a private address while the flag is off, and for anything that is
// not an image. The dashboard's CSP allows images from this origin only.
import t from '../tap.ts'
import { freshDatabase, build, signedInUser } from '../helper.ts'
import { accounts, profiles } from '../../src/db/schema/index.ts'
import type { Db } from '../../src/db/client.ts'
import { createImageService } from '../../src/services/images/index.ts'
import { createOutboundFetch } from '../../src/services/outbound/fetch.ts'
import { imageHost, PNG, WEBP } from './support.ts'

const image = (url: string) => `/api/v1/images?url=${encodeURIComponent(url)}`

let stored = 0
/** profiles whose images are these URLs */
async function storeImages (db: Db, urls: string[]) {
  await db.insert(profiles).values(urls.map((url) => {
    const n = ++stored
    return { id: `p-img-${n}`, source: 'ig' as const, username: `pic${n}`, fullname: `Pic ${n}`, image: url, link: `https://ig.example/pic${n}` }
  }))
}

t.test('an image the data holds: fetched once, then served from memory', async (t) => {
  const host = await imageHost(t)
  const app = await build(t, { OUTBOUND_ALLOW_PRIVATE: 'on' })
  const paths = ['/p.png', '/page.html', '/liar.png', '/logo.svg', '/svg-as-png.png', '/big.png', '/moved.png', '/silent.png']
  await storeImages(app.db, paths.map((p) => host.origin + p))
  await app.db.insert(accounts).values({ id: 'a-img', source: 'ig', username: 'acc', fullname: 'Acc', image: `${host.origin}/a.webp` })
  const u = await signedInUser(app)

  t.test('by the session cookie, as an <img> sends it', async (t) => {
    const first = await app.inject({ url: image(`${host.origin}/p.png`), headers: { cookie: u.cookie } })
    t.equal(first.statusCode, 200, first.body)
    t.equal(first.headers['content-type'], 'image/png')
    t.same(first.rawPayload, PNG, 'the bytes fetched')
    t.equal(first.headers['cache-control'], 'private, max-age=31536000, immutable')
    const etag = first.headers.etag as string
    t.match(etag, /^"[A-Za-z0-9_-]{32}"$/)
    t.equal(first.headers['x-content-type-options'], 'nosniff')

    const again = await app.inject({ url: image(`${host.origin}/p.png`), headers: u.auth })
    t.equal(again.statusCode, 200, 'by a Bearer token too')
    t.same(again.rawPayload, PNG)
    t.equal(again.headers.etag, etag)
    const revalidated = await app.inject({ url: image(`${host.origin}/p.png`), headers: { cookie: u.cookie, 'if-none-match': etag } })
    t.equal(revalidated.statusCode, 304)
    t.equal(revalidated.body, '')
    t.equal(host.hits['/p.png'], 1, 'the image host was asked once')
  })

  t.test("an account's image, typed by its bytes", async (t) => {
    const res = await app.inject({ url: image(`${host.origin}/a.webp`), headers: u.auth })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'image/webp')
    t.same(res.rawPayload, WEBP)
  })

  t.test('requests at once share one fetch', async (t) => {
    await app.db.insert(profiles).values({ id: 'p-once', source: 'fb', username: 'once', fullname: 'Once', image: `${host.origin}/p.png?once`, link: 'https://fb.example/once' })
    const all = await Promise.all(Array.from({ length: 5 }, () => app.inject({ url: image(`${host.origin}/p.png?once`), headers: u.auth })))
    t.same(all.map((r) => r.statusCode), [200, 200, 200, 200, 200])
    t.equal(host.hits['/p.png?once'], 1)
  })

  t.test('anything not an image is refused, and the refusal remembered', async (t) => {
    for (const path of ['/page.html', '/liar.png', '/logo.svg', '/svg-as-png.png', '/big.png', '/moved.png']) {
      const res = await app.inject({ url: image(host.origin + path), headers: u.auth })
      t.equal(res.statusCode, 502, path)
      t.has(res.json(), { code: 502, message: 'image unavailable' }, path)
      const again = await app.inject({ url: image(host.origin + path), headers: u.auth })
      t.equal(again.statusCode, 502)
      t.equal(host.hits[path], 1, `${path}: fetched once in ten minutes`)
    }
  })

  t.test('a stored URL the URL parser refuses', async (t) => {
    await storeImages(app.db, ['http://[not-a-host/p.png'])
    const res = await app.inject({ url: image('http://[not-a-host/p.png'), headers: u.auth })
    t.equal(res.statusCode, 502)
    t.has(res.json(), { code: 502, message: 'image unavailable' })
  })

  t.test('a URL the data does not hold is never fetched', async (t) => {
    const res = await app.inject({ url: image(`${host.origin}/a.webp?not-stored`), headers: u.auth })
    t.equal(res.statusCode, 404)
    t.has(res.json(), { code: 404, message: 'not found' })
    t.equal(host.hits['/a.webp?not-stored'], undefined)
  })

  t.test('the request itself', async (t) => {
    const anonymous = await app.inject({ url: image(`${host.origin}/p.png`) })
    t.equal(anonymous.statusCode, 401, 'signed-in users only')
    t.has(anonymous.json(), { code: 401, message: 'access denied' })
    for (const url of ['/api/v1/images', image('javascript:alert(1)'), image('not a url'), image(`https://x.example/${'i'.repeat(2048)}`), `${image(`${host.origin}/p.png`)}&extra=1`]) {
      const res = await app.inject({ url, headers: u.auth })
      t.equal(res.statusCode, 400, url.slice(0, 60))
      t.equal(res.json().code, 400)
    }
  })
})

t.test('with OUTBOUND_ALLOW_PRIVATE off, private addresses are refused before connecting', async (t) => {
  const host = await imageHost(t)
  const port = new URL(host.origin).port
  const app = await build(t)
  const urls = [`${host.origin}/p.png`, `http://[::1]:${port}/p.png`, 'http://169.254.169.254/latest/meta-data/', `http://localhost:${port}/p.png`]
  await storeImages(app.db, urls)
  const u = await signedInUser(app)
  for (const url of urls) {
    const res = await app.inject({ url: image(url), headers: u.auth })
    t.equal(res.statusCode, 502, url)
    t.has(res.json(), { code: 502, message: 'image unavailable' })
  }
  t.same(host.hits, {}, 'the image host received nothing')
})

t.test('a name that resolves to a private address is refused (the service with its resolver passed in)', async (t) => {
  const host = await imageHost(t)
  const port = new URL(host.origin).port
  const database = await freshDatabase(t)
  const url = `http://images.example:${port}/p.png`
  await storeImages(database.db, [url])
  const warnings: unknown[] = []
  const log = { warn: (obj: unknown) => { warnings.push(obj) } } as never
  const resolve = async () => [{ address: '10.0.0.1', family: 4 }]
  const images = createImageService({ database, fetch: createOutboundFetch({ allowPrivate: false, httpsOnly: false, resolve }), log })
  await t.rejects(images.get(url), { statusCode: 502, message: 'image unavailable' })
  t.same(warnings, [{ host: `images.example:${port}`, reason: 'address not allowed' }], 'the reason is logged, with the host only')
  t.same(host.hits, {})
})

t.test("the dashboard's pages allow images from this origin and data: only", async (t) => {
  const app = await build(t)
  const page = await app.inject({ url: '/' })
  const csp = String(page.headers['content-security-policy'])
  t.match(csp, /(^|;)img-src 'self' data:(;|$)/, 'no image from any other host')
})
