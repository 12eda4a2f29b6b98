// One POST to a URL an account named (a webhook endpoint), under the same rules as outbound GETs
// (src/services/outbound/fetch.ts; docs/security.md, Outbound requests and profile images): the
// scheme, no credentials, a public address checked on a literal before connecting and on a name at
// connect time, no redirects, one deadline for the whole exchange. Any HTTP answer is returned with
// its status (the caller decides what a 3xx or 500 means); only a small capped part of its body is
// read, and the connection is dropped after it. Every failure to get an answer is an OutboundRefused
// whose message says why.
import type { IncomingMessage } from 'node:http'
import { createOutboundExchange, type OutboundOptions } from './fetch.ts'

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
  const exchange = createOutboundExchange(opts)
  return async function outboundPost (url, req) {
    return await exchange(url, { method: 'POST', headers: req.headers, body: Buffer.from(req.body, 'utf8') },
      async (res) => ({ status: res.statusCode ?? 0, body: await readStart(res, req.maxAnswerBytes) }))
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
