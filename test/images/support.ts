// A local image host for the image tests: a real HTTP server on loopback whose answers are chosen by
// path, counting the requests each path receives.
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Tap } from '../helper.ts'

/** a 1x1 PNG */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
/** the first bytes of a WebP file (a RIFF container of kind WEBP) */
export const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8L'), Buffer.alloc(18)])
export const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><script>alert(1)</script></svg>'

type Answer = (res: ServerResponse) => void

const send = (type: string, body: string | Buffer): Answer => (res) => { res.writeHead(200, { 'content-type': type }).end(body) }

/** what each path answers */
export const ANSWERS: Record<string, Answer> = {
  '/p.png': send('image/png', PNG),
  '/a.webp': send('image/webp; charset=binary', WEBP),
  '/page.html': send('text/html', '<!doctype html><title>not an image</title>'),
  // labelled an image, but its bytes are a page
  '/liar.png': send('image/png', '<!doctype html><script>alert(1)</script>'),
  '/logo.svg': send('image/svg+xml', SVG),
  '/svg-as-png.png': send('image/png', SVG),
  '/big.png': send('image/png', Buffer.concat([PNG, Buffer.alloc(3 * 1024 * 1024)])),
  // no Content-Length: the cap is found while reading
  '/big-chunked.png': (res) => {
    res.writeHead(200, { 'content-type': 'image/png' })
    res.write(PNG)
    for (let i = 0; i < 48; i++) res.write(Buffer.alloc(64 * 1024))
    res.end()
  },
  '/moved.png': (res) => { res.writeHead(302, { location: '/p.png' }).end() },
  '/missing.png': (res) => { res.writeHead(404, { 'content-type': 'text/plain' }).end('no') },
  // never answers: the deadline ends it
  '/silent.png': () => {}
}

export interface ImageHost {
  /** http://127.0.0.1:<port> */
  origin: string
  /** requests received, by path and query */
  hits: Record<string, number>
}

export async function imageHost (t: Tap): Promise<ImageHost> {
  const hits: Record<string, number> = {}
  const server = createServer((req, res) => {
    const path = req.url ?? '/'
    hits[path] = (hits[path] ?? 0) + 1
    const answer = ANSWERS[path.split('?')[0]]
    if (answer) answer(res)
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits }
}
