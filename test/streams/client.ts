// Clients for the SSE tests: the real `eventsource` client (headers through its `fetch` option, as a
// Node client without a cookie jar has to), and a raw node:http reader that sees the exact bytes
// (headers, retry line, comments) an EventSource hides.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { EventSource } from 'eventsource'
import type { FastifyInstance } from 'fastify'
import type { AddressInfo } from 'node:net'
import { until } from '../peers/wait.ts'

export interface Received { type: string, id: string, data: Record<string, unknown> }

/** the app listening on a free local port; returns its base URL */
export async function listen (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

/**
 * Close an app once its tests are done. An EventSource closed in the middle of a stream makes fetch
 * (undici) open a spare connection, a moment later, that never sends a request; a server's close
 * waits for such a connection until Node times it out (a minute or more): end those as they come.
 */
export async function closeApp (app: FastifyInstance): Promise<void> {
  const sweep = setInterval(() => { app.server.closeAllConnections() }, 100)
  try {
    await app.close()
  } finally {
    clearInterval(sweep)
  }
}

export interface EventSourceOptions {
  /** where each request really goes (a load balancer's choice); the URL the client knows by default */
  route?: (url: string) => string
  /** close the client on `done`, so that it does not reconnect (and read) afterwards */
  closeOnDone?: boolean
  /** a request waits for this first (a load balancer holding connections while a backend comes up) */
  hold?: () => Promise<void> | undefined
}

export type Client = ReturnType<typeof openEventSource>

export function openEventSource (url: string, headers: Record<string, string>, opts: EventSourceOptions = {}) {
  const received: Received[] = []
  const errors: Array<{ code?: number, message?: string, readyState: number }> = []
  /** every request the client made (the first connect and each reconnect): where it went, its headers */
  const requests: Array<{ url: string, headers: Record<string, string> }> = []
  let opens = 0
  const es = new EventSource(url, {
    fetch: async (input, init) => {
      await opts.hold?.()
      const sent = { ...(init?.headers as Record<string, string>), ...headers }
      const target = opts.route ? opts.route(String(input)) : String(input)
      requests.push({ url: target, headers: sent })
      return await fetch(target, { ...init, headers: sent })
    }
  })
  // `end`: the service ended the stream (its session ended, its report was deleted, its token expired);
  // `alert`: the user's alert stream (GET /sse/alerts)
  for (const type of ['status', 'done', 'end', 'alert']) {
    es.addEventListener(type, (e: MessageEvent) => {
      received.push({ type, id: e.lastEventId, data: JSON.parse(e.data) })
      if (type === 'done' && opts.closeOnDone) es.close()
    })
  }
  es.addEventListener('open', () => { opens++ })
  es.addEventListener('error', (e) => {
    const { code, message } = e as { code?: number, message?: string }
    errors.push({ code, message, readyState: es.readyState })
  })
  return {
    es,
    received,
    errors,
    requests,
    opens: () => opens,
    /** wait until the events received satisfy probe */
    async waitFor (probe: (r: Received[]) => boolean, what: string, timeoutMs = 30_000) {
      await until(() => probe(received), { timeoutMs, what })
    },
    /** wait for a refusal: the client fails with this HTTP status and stops */
    async waitForFailure (what: string, timeoutMs = 10_000) {
      return await until(() => errors.find((e) => e.code !== undefined), { timeoutMs, what })
    },
    close: () => es.close()
  }
}

/** what a client received, in the shape of parseEvents (the id is '' for an event without one) */
export const seen = (c: Client): SseEvent[] => c.received.map((e) => ({ id: e.id, event: e.type, data: e.data }))

export interface RawStream {
  status: number
  headers: IncomingHttpHeaders
  text: () => string
  /** the response arrived whole: the server ended it (as opposed to a broken connection) */
  complete: () => boolean
  ended: () => boolean
  waitForText: (probe: (text: string) => boolean, what: string, timeoutMs?: number) => Promise<string>
  waitForEnd: (timeoutMs?: number) => Promise<void>
  abort: () => void
}

/** GET a stream with node:http and keep every byte; resolves once the response headers arrive */
export function rawStream (url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false })
    req.on('error', reject)
    req.on('response', (res) => {
      let text = ''
      let ended = false
      let complete = false
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { text += chunk })
      res.on('end', () => { ended = true; complete = true })
      res.on('close', () => { ended = true })
      res.on('error', () => {})
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => text,
        complete: () => complete,
        ended: () => ended,
        waitForText: (probe, what, timeoutMs = 20_000) => until(() => probe(text) && text, { timeoutMs, what }),
        waitForEnd: (timeoutMs = 20_000) => until(() => ended, { timeoutMs, what: 'the end of the stream' }).then(() => {}),
        abort: () => { req.destroy() }
      })
    })
    req.end()
  })
}

export interface SseEvent { id?: string, event: string, data: Record<string, unknown> }

/** the events of a raw stream's text, in order: {id?, event, data} per block, comments and retry left out */
export function parseEvents (text: string): SseEvent[] {
  const out: SseEvent[] = []
  for (const block of text.split('\n\n')) {
    const fields = new Map<string, string>()
    for (const line of block.split('\n')) {
      const m = /^([a-z]+): (.*)$/.exec(line)
      if (m) fields.set(m[1], m[2])
    }
    if (fields.has('event')) out.push({ id: fields.get('id'), event: fields.get('event')!, data: JSON.parse(fields.get('data')!) })
  }
  return out
}

/** the events of one generation of a report that succeeds, as the stream carries them */
export function generationEvents (reportId: string): SseEvent[] {
  const status = (seq: number, status: string, progress: number, stage: string) =>
    ({ id: String(seq), event: 'status', data: { reportId, status, progress, stage } })
  return [
    status(1, 'queued', 0, 'queued'),
    status(2, 'generating', 10, 'collecting'),
    status(3, 'generating', 40, 'interests'),
    status(4, 'generating', 70, 'friends'),
    status(5, 'generating', 90, 'diffs'),
    status(6, 'ready', 100, 'diffs'),
    { id: '7', event: 'done', data: { reportId, status: 'ready' } }
  ]
}
