// One POST to a URL an account named (a webhook endpoint), under the same rules as outbound GETs
// (src/services/outbound/fetch.ts; docs/security.md, Outbound requests and profile images): the
// scheme, no credentials, a public address checked on a literal before connecting and on a name at
// connect time, no redirects, one deadline for the whole exchange. Any HTTP answer is returned with
// its status (the caller decides what a 3xx or 500 means); only a small capped part of its body is
// read, and the connection is dropped after it. Every failure to get an answer is an OutboundRefused
// whose message says why.
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { OutboundRefused } from '../../errors.ts'
import { guardedLookup, systemResolver } from './addresses.ts'
import { checkedTarget, type OutboundOptions } from './fetch.ts'

export interface PostRequest {
  headers: Record<string, string>
  body: string
  /** the most bytes of the answer's body read (the rest is dropped) */
  maxAnswerBytes: number
}

export interface PostAnswer {
  status: number
  /** the start of the answer's body, at most maxAnswerBytes */
  body: Buffer
}

export type OutboundPost = (url: string, req: PostRequest) => Promise<PostAnswer>

export function createOutboundPost (opts: OutboundOptions): OutboundPost {
  const timeoutMs = opts.timeoutMs ?? 15_000
  const lookup = guardedLookup(opts.resolve ?? systemResolver, opts.allowPrivate)
  const userAgent = opts.userAgent ?? 'profile-interest-reports'

  return async function outboundPost (url, req) {
    const target = checkedTarget(url, opts)
    const signal = AbortSignal.timeout(timeoutMs)
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const body = Buffer.from(req.body, 'utf8')
    return await new Promise<PostAnswer>((resolve, reject) => {
      const fail = (err: unknown) => {
        reject(err instanceof OutboundRefused ? err : new OutboundRefused(signal.aborted ? 'timed out' : `request failed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`))
      }
      try {
        const request = send(target, {
          method: 'POST',
          // a connection of its own, so that its lookup is this one and nothing is kept open
          agent: false,
          lookup,
          signal,
          headers: { ...req.headers, 'content-length': String(body.length), 'user-agent': userAgent }
        }, (res) => { readStart(res, req.maxAnswerBytes).then((start) => { resolve({ status: res.statusCode ?? 0, body: start }) }, fail) })
        request.on('error', fail)
        request.end(body)
      } catch (err) {
        // Node refuses some URLs the URL parser takes (a character a request path cannot carry)
        fail(err)
      }
    })
  }
}

/** at most `max` bytes of the body, what arrived of them; the connection is dropped once they are in or the body ends */
async function readStart (res: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      chunks.push(chunk)
      size += chunk.length
      if (size >= max) break
    }
  } catch {
    // the status is the answer; a body cut short (the deadline, a reset) takes nothing from it
  } finally {
    if (!res.complete) res.destroy()
  }
  return Buffer.concat(chunks, size).subarray(0, max)
}
