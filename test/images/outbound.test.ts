// The outbound rules (src/services/outbound/): which addresses a request the service makes on its own
// may reach, judged on the address the socket connects to, and what an answer must be to be taken.
// Against a real HTTP server on loopback; names are resolved by a resolver the test passes in.
import t from '../tap.ts'
import type { LookupAddress } from 'node:dns'
import { OutboundRefused } from '../../src/errors.ts'
import { isPublicAddress } from '../../src/services/outbound/addresses.ts'
import { createOutboundFetch, type OutboundRequest } from '../../src/services/outbound/fetch.ts'
import { IMAGE_TYPES } from '../../src/services/images/image-types.ts'
import { imageHost, PNG } from './support.ts'

const IMAGES: OutboundRequest = { maxBytes: 2 * 1024 * 1024, accept: IMAGE_TYPES }

/** a resolver from a fixed table, counting its calls */
function resolver (table: Record<string, string[]>) {
  const calls: string[] = []
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname)
    const addresses = table[hostname]
    if (!addresses) throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' })
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  return { resolve, calls }
}

/** the reason an outbound fetch was refused (fails the test when it was not) */
async function refusal (promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (err) {
    if (err instanceof OutboundRefused) return err.message
    throw err
  }
  throw new Error('the fetch was not refused')
}

t.test('public and non-public addresses', async (t) => {
  const refused = [
    '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '192.0.2.1', '240.0.0.1',
    '::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1',
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1',
    // IPv6 forms that carry an IPv4 address, judged as that address
    '::7f00:1', '::127.0.0.1', '::ffff:7f00:1', '64:ff9b::7f00:1', '64:ff9b:1::7f00:1', '::ffff:0:7f00:1',
    '::a00:1', '::a9fe:a9fe', '::c0a8:101', '64:ff9b::808:808',
    'not-an-address', ''
  ]
  for (const address of refused) t.notOk(isPublicAddress(address), `${address || '(empty)'} is not public`)
  for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '::808:808']) t.ok(isPublicAddress(address), `${address} is public`)
})

t.test('a non-public address is refused before any byte is sent, by literal or by name', async (t) => {
  const host = await imageHost(t)
  const port = new URL(host.origin).port
  const { resolve, calls } = resolver({
    'internal.example': ['10.0.0.1'],
    'mixed.example': ['93.184.215.14', '127.0.0.1'],
    'loopback.example': ['127.0.0.1']
  })
  const fetch = createOutboundFetch({ allowPrivate: false, httpsOnly: false, resolve })
  for (const url of [
    `http://127.0.0.1:${port}/p.png`, `http://[::1]:${port}/p.png`, 'http://169.254.169.254/latest/meta-data/',
    `http://[::ffff:127.0.0.1]:${port}/p.png`, `http://2130706433:${port}/p.png`, `http://0x7f.1:${port}/p.png`, 'http://0.0.0.0/'
  ]) t.equal(await refusal(fetch(url, IMAGES)), 'address not allowed', url)
  t.same(calls, [], 'an address in the URL is judged without a lookup')

  t.equal(await refusal(fetch(`http://internal.example:${port}/p.png`, IMAGES)), 'address not allowed', 'a name that resolves to 10.0.0.1')
  t.equal(await refusal(fetch(`http://mixed.example:${port}/p.png`, IMAGES)), 'address not allowed', 'a name with one private address among public ones')
  t.equal(await refusal(fetch(`http://loopback.example:${port}/p.png`, IMAGES)), 'address not allowed', 'a name that resolves to loopback')
  t.same(calls, ['internal.example', 'mixed.example', 'loopback.example'], 'names are resolved by the socket\'s lookup')
  t.match(await refusal(fetch('http://unknown.example/p.png', IMAGES)), /^request failed: ENOTFOUND/)
  t.same(host.hits, {}, 'the image host received nothing')
})

t.test('the socket connects to the address its own lookup checked', async (t) => {
  const host = await imageHost(t)
  const port = new URL(host.origin).port
  // allowed here only because the test allows private addresses: the lookup still decides where to connect
  const { resolve, calls } = resolver({ 'images.example': ['127.0.0.1'] })
  const fetch = createOutboundFetch({ allowPrivate: true, httpsOnly: false, resolve })
  const answer = await fetch(`http://images.example:${port}/p.png`, IMAGES)
  t.same(answer, { type: 'image/png', body: PNG })
  t.same(calls, ['images.example'])
  t.same(host.hits, { '/p.png': 1 })
})

t.test('what an answer must be', async (t) => {
  const host = await imageHost(t)
  const fetch = createOutboundFetch({ allowPrivate: true, httpsOnly: false, timeoutMs: 1000 })
  const get = (path: string, req = IMAGES) => fetch(host.origin + path, req)
  t.same(await get('/p.png'), { type: 'image/png', body: PNG }, 'an image')
  t.equal((await get('/a.webp')).type, 'image/webp', 'the media type without its parameters')
  t.equal(await refusal(get('/page.html')), 'content type text/html not accepted')
  t.equal(await refusal(get('/logo.svg')), 'content type image/svg+xml not accepted', 'SVG is never accepted')
  t.equal(await refusal(get('/big.png')), 'body too large', 'a Content-Length over the cap')
  t.equal(await refusal(get('/big-chunked.png')), 'body too large', 'a body that grows over the cap while read')
  t.equal(await refusal(get('/moved.png')), 'redirect not followed')
  t.equal(await refusal(get('/missing.png')), 'status 404')
  t.equal(await refusal(get('/silent.png')), 'timed out', 'one deadline for the whole exchange')
  t.equal(host.hits['/p.png'], 1, 'the redirect was not followed')
})

t.test('schemes and credentials', async (t) => {
  const host = await imageHost(t)
  const https = createOutboundFetch({ allowPrivate: true, httpsOnly: true })
  t.equal(await refusal(https(`${host.origin}/p.png`, IMAGES)), 'scheme http: not allowed', 'https only (production)')
  const fetch = createOutboundFetch({ allowPrivate: true, httpsOnly: false })
  t.equal(await refusal(fetch('ftp://127.0.0.1/p.png', IMAGES)), 'scheme ftp: not allowed')
  t.equal(await refusal(fetch('file:///etc/passwd', IMAGES)), 'scheme file: not allowed')
  t.equal(await refusal(fetch(host.origin.replace('//', '//user:secret@') + '/p.png', IMAGES)), 'credentials in the URL')
  t.equal(await refusal(fetch('not a url', IMAGES)), 'not a URL')
  t.same(host.hits, {})
})
