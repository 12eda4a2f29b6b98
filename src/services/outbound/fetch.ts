// One GET to a URL the service fetches on its own behalf, under rules that keep it from being turned
// against the service's own network or resources (docs/security.md, Outbound requests and profile images):
// - http: or https: only, https only in production;
// - the connected address is public (src/services/outbound/addresses.ts): a literal address in the
//   URL is checked before connecting, a name at connect time by the socket's own lookup;
// - no redirects: a 3xx is a failure. A redirect would need every hop checked again, and what the
//   service fetches (image URLs from the networks' CDNs) answers directly;
// - one deadline for the whole exchange (connect, headers, body), a cap on the body's bytes (a
//   Content-Length over it is refused before reading), no cookies, no compression asked for;
// - only a 200 with a content type the caller accepts.
// Every refusal or failure is an OutboundRefused whose message says why, for the log.
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { OutboundRefused } from '../../errors.ts'
import { guardedLookup, isPublicAddress, literalAddress, systemResolver, type Resolver } from './addresses.ts'

export interface OutboundOptions {
  /** loopback and private addresses allowed (OUTBOUND_ALLOW_PRIVATE: tests only) */
  allowPrivate: boolean
  /** refuse http: URLs (production) */
  httpsOnly: boolean
  /** the whole exchange, in ms (15 s unless given) */
  timeoutMs?: number
  /** tests resolve names their own way */
  resolve?: Resolver
  /** the User-Agent sent */
  userAgent?: string
}

export interface OutboundRequest {
  /** the largest body taken, in bytes */
  maxBytes: number
  /** the media types (lower case, no parameters) an answer may have */
  accept: readonly string[]
}

export interface OutboundAnswer {
  /** the answer's media type, lower case, without parameters */
  type: string
  body: Buffer
}

export type OutboundFetch = (url: string, req: OutboundRequest) => Promise<OutboundAnswer>

const refused = (why: string) => new OutboundRefused(why)

/** the URL parsed and checked before any connection: scheme, no credentials, a literal address public (unless allowPrivate) */
export function checkedTarget (url: string, opts: Pick<OutboundOptions, 'allowPrivate' | 'httpsOnly'>): URL {
  let target: URL
  try { target = new URL(url) } catch { throw refused('not a URL') }
  if (target.protocol !== 'https:' && (target.protocol !== 'http:' || opts.httpsOnly)) throw refused(`scheme ${target.protocol} not allowed`)
  if (target.username || target.password) throw refused('credentials in the URL')
  const literal = literalAddress(target.hostname)
  if (literal !== null && !opts.allowPrivate && !isPublicAddress(literal)) throw refused('address not allowed')
  return target
}

/** one request's method, headers and body (the User-Agent and Content-Length are set here) */
export interface Exchange { method: string, headers: Record<string, string>, body?: Buffer }

/**
 * The request every outbound call makes, under the rules above: the URL checked, a connection of its
 * own whose lookup checks the address, one deadline; `answer` reads the response. Every failure is an
 * OutboundRefused whose message says why.
 */
export function createOutboundExchange (opts: OutboundOptions) {
  const timeoutMs = opts.timeoutMs ?? 15_000
  const lookup = guardedLookup(opts.resolve ?? systemResolver, opts.allowPrivate)
  const userAgent = opts.userAgent ?? 'profile-interest-reports'

  return async function exchange<T> (url: string, req: Exchange, answer: (res: IncomingMessage) => Promise<T>): Promise<T> {
    const target = checkedTarget(url, opts)
    const signal = AbortSignal.timeout(timeoutMs)
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const headers = req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(req.body.length) }
    return await new Promise<T>((resolve, reject) => {
      const fail = (err: unknown) => {
        reject(err instanceof OutboundRefused ? err : refused(signal.aborted ? 'timed out' : `request failed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`))
      }
      try {
        const request = send(target, {
          method: req.method,
          // a connection of its own, so that its lookup is this one and nothing is kept open
          agent: false,
          lookup,
          signal,
          headers: { ...headers, 'user-agent': userAgent }
        }, (res) => { answer(res).then(resolve, fail) })
        request.on('error', fail)
        request.end(req.body)
      } catch (err) {
        // Node refuses some URLs the URL parser takes (a character a request path cannot carry)
        fail(err)
      }
    })
  }
}

export function createOutboundFetch (opts: OutboundOptions): OutboundFetch {
  const exchange = createOutboundExchange(opts)
  return async function outboundFetch (url, req) {
    return await exchange(url, { method: 'GET', headers: { accept: req.accept.join(', ') } }, (res) => read(res, req))
  }
}

async function read (res: IncomingMessage, req: OutboundRequest): Promise<OutboundAnswer> {
  try {
    if (res.statusCode !== 200) throw refused(res.statusCode! >= 300 && res.statusCode! < 400 ? 'redirect not followed' : `status ${res.statusCode}`)
    const type = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
    if (!req.accept.includes(type)) throw refused(`content type ${type || 'missing'} not accepted`)
    const encoding = res.headers['content-encoding']
    if (encoding && encoding !== 'identity') throw refused(`content encoding ${encoding} not accepted`)
    const declared = Number(res.headers['content-length'])
    if (declared > req.maxBytes) throw refused('body too large')
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > req.maxBytes) throw refused('body too large')
      chunks.push(chunk)
    }
    return { type, body: Buffer.concat(chunks, size) }
  } finally {
    // whatever is left unread is not wanted: the connection is not reused
    if (!res.complete) res.destroy()
  }
}
