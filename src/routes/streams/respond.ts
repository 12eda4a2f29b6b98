// What the stream routes (GET /sse/{reportId}, GET /sse/alerts) share: the client's Last-Event-ID, and
// taking the response over from Fastify to hand it to a prepared stream of a hub.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SSE_RETRY_MS } from '../../../schemas/sse.ts'
import { UNMATCHED_ROUTE } from '../../plugins/metrics.ts'
import type { SseOutput } from '../../services/streams/wire.ts'
import { openStream, type StreamHeaders } from './stream.ts'

/** what the client's EventSource waits before reconnecting, in ms */
export const RETRY_MS = SSE_RETRY_MS
/** what a user at the stream limit is told to wait: a stream frees up when another one closes */
export const FULL_RETRY_AFTER_S = 30

const SEQ = /^\d{1,15}$/

/** the Last-Event-ID header, else the lastEventId query parameter; anything not a seq counts as none */
export function lastEventId (request: FastifyRequest, query: string | undefined): number | undefined {
  const header = request.headers['last-event-id']
  const value = (typeof header === 'string' && header.trim()) || query?.trim()
  return value && SEQ.test(value) ? Number(value) : undefined
}

/** the client went away while the stream was being prepared */
function gone (reply: FastifyReply): boolean {
  const res = reply.raw as FastifyReply['raw'] & { stream?: { destroyed: boolean } }
  return res.destroyed || res.stream?.destroyed === true
}

/** a stream a hub prepared: start() writes its first bytes and goes live, cancel() drops it */
export interface StartableStream {
  start: (out: SseOutput, preamble?: string) => void
  cancel: () => void
}

/** take the response over from Fastify and start the prepared stream on it, `retry:` first */
export function respondWithStream (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, prepared: StartableStream): void {
  reply.hijack()
  if (gone(reply)) {
    prepared.cancel()
    return
  }
  // Hijacking skips Fastify's header handling: the reply's headers (helmet's, rate limit, request
  // id) are sent here.
  const headers: StreamHeaders = {}
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) headers[name] = value
  }
  headers['content-type'] = 'text/event-stream'
  headers['cache-control'] = 'no-cache'
  headers['x-accel-buffering'] = 'no'
  const stream = openStream(reply.raw, headers)
  // what stays with an open stream is this function and what it holds: not the request, nor the reply
  let onClose = () => { prepared.cancel() }
  if (stream.detached) {
    // Fastify's onResponse hooks and its "request completed" line will not come for a response
    // that is no longer its own: the stream is counted now, and its end logged here.
    app.metrics?.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, 200, undefined)
    const reqId = request.id
    const started = performance.now()
    onClose = () => {
      prepared.cancel()
      app.log.info({ reqId, res: { statusCode: 200 }, responseTime: performance.now() - started }, 'request completed')
    }
  }
  stream.onClose(onClose)
  prepared.start(stream, `retry: ${RETRY_MS}\n\n`)
}
