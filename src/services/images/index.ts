// Profile and account images, fetched by the service and kept in memory, so that a viewer's browser
// loads them from this origin and the network that hosts them never learns who looks at whom
// (docs/decisions/images-and-outbound-requests.md, Profile images).
// Only a URL the data holds (a profile's or an account's `image`) is ever fetched: the route is not a
// proxy for anything else. Each instance fetches an image once under the outbound rules
// (src/services/outbound/), checks its bytes are one of the image formats it serves, and keeps it
// (bounded by bytes, the oldest out first, for a day); a failure is remembered for ten minutes, so a
// dead link costs one outbound request per instance in that time, not one per viewer.
import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../../db/client.ts'
import { ImageUnavailable, notFound, OutboundRefused } from '../../errors.ts'
import type { OutboundFetch } from '../outbound/fetch.ts'
import { createViewCache } from '../caches/view-cache.ts'
import { IMAGE_TYPES, sniffImage, type ImageType } from './image-types.ts'

export interface Image {
  type: ImageType
  body: Buffer
  /** a strong ETag of the bytes, quoted */
  etag: string
}

export interface ImageServiceOptions {
  database: Database
  fetch: OutboundFetch
  log: FastifyBaseLogger
  /** the largest image fetched, in bytes (2 MiB unless given) */
  maxBytes?: number
  /** the images kept in memory, in bytes (64 MiB unless given) */
  cacheBytes?: number
  now?: () => number
}

const DAY_MS = 24 * 3600_000
const FAILURE_MS = 10 * 60_000

// ingest's URL pattern lets through some text the URL parser refuses
function hostOf (url: string): string {
  try { return new URL(url).host } catch { return '(not a URL)' }
}

export function createImageService (opts: ImageServiceOptions) {
  const { database, fetch, log } = opts
  const maxBytes = opts.maxBytes ?? 2 * 1024 * 1024

  /** the data names this URL as a profile's or an account's image (each column has a hash index) */
  async function known (url: string): Promise<boolean> {
    const [row] = await database.query<{ known: boolean }>(
      'select exists (select 1 from profiles where image = $1) or exists (select 1 from accounts where image = $1) as known', [url])
    return row.known
  }

  const failed = createViewCache<string>({ maxEntries: 10_000, ttlMs: FAILURE_MS, now: opts.now })

  async function load (url: string): Promise<Image> {
    if (failed.peek(url) !== undefined) throw new ImageUnavailable()
    if (!await known(url)) throw notFound()
    let answer
    try {
      answer = await fetch(url, { maxBytes, accept: IMAGE_TYPES })
    } catch (err) {
      if (!(err instanceof OutboundRefused)) throw err
      return unavailable(url, err.message)
    }
    const type = sniffImage(answer.body)
    if (!type) return unavailable(url, `bytes of ${answer.type} are not an image`)
    const etag = `"${createHash('sha256').update(answer.body).digest('base64url').slice(0, 32)}"`
    return { type, body: answer.body, etag }
  }

  function unavailable (url: string, reason: string): never {
    failed.set(url, reason)
    // the host only: the path of an image URL can be long and says nothing the host does not
    log.warn({ host: hostOf(url), reason }, 'image not fetched')
    throw new ImageUnavailable()
  }

  const images = createViewCache<Image>({
    load,
    maxEntries: 10_000,
    maxBytes: opts.cacheBytes ?? 64 * 1024 * 1024,
    bytes: (image) => image.body.length + 200,
    ttlMs: DAY_MS,
    now: opts.now
  })

  return {
    /** the image at a URL the data holds; NotFound for any other URL, ImageUnavailable when it cannot be fetched */
    get: (url: string): Promise<Image> => images.get(url)
  }
}

export type ImageService = ReturnType<typeof createImageService>
