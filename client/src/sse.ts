// followReport: the report's event stream (GET /api/v1/sse/{id}) read with fetch and an
// `Authorization: Bearer` header. Not EventSource: it cannot send that header, and a page on another
// site cannot use the session cookie (SameSite=Lax). The stream is parsed as the HTML standard's
// event-stream (id, event, data, retry, comments); a dropped connection is resumed with Last-Event-ID,
// so no event is lost or repeated; `done` and `end` stop it, and 204 means the report is over and
// the client already has its last event.
import type { components } from './schema.d.ts'
import { ApiError } from './client.ts'

export type SseStatus = components['schemas']['SseStatusData']
export type SseDone = components['schemas']['SseDoneData']
export type SseEnd = components['schemas']['SseEndData']

export type ReportEvent =
  | { type: 'status', id: string | undefined, data: SseStatus }
  | { type: 'done', id: string | undefined, data: SseDone }
  | { type: 'end', id: string | undefined, data: SseEnd }

export interface FollowOptions {
  /**
   * the Bearer token (a JWT or any credential the service accepts as Bearer), or a function giving
   * the current one (called on each connect, e.g. after a refresh)
   */
  token: string | (() => string | Promise<string>)
  /** resume after this event id (the last one a previous follow returned) */
  lastEventId?: string | undefined
  signal?: AbortSignal | undefined
  onEvent?: ((event: ReportEvent) => void) | undefined
  /** connections after a drop before giving up (default 5); reset by each event received */
  maxRetries?: number | undefined
  fetch?: typeof fetch | undefined
}

export interface FollowResult {
  /** done: the generation is over; end: the server ended the stream (see end.reason); finished: 204 */
  outcome: 'done' | 'end' | 'finished'
  lastEventId: string | undefined
  done?: SseDone
  end?: SseEnd
}

interface RawEvent { type: string, id: string | undefined, data: string }

/**
 * An event-stream parser: feed it decoded text as it arrives; it calls onEvent for each complete
 * event, onRetry for a valid `retry:` and onComment for `:` lines. Lines end with CRLF, LF or CR.
 */
export function parseEventStream (handlers: { onEvent: (e: RawEvent) => void, onRetry?: (ms: number) => void, onComment?: (text: string) => void }) {
  let buffer = ''
  let data: string[] = []
  let type = ''
  let id: string | undefined
  let lastId: string | undefined
  let first = true
  const line = (l: string) => {
    if (l === '') {
      if (data.length) handlers.onEvent({ type: type || 'message', id: lastId, data: data.join('\n') })
      data = []
      type = ''
      return
    }
    if (l.startsWith(':')) { handlers.onComment?.(l.slice(1).trimStart()); return }
    const colon = l.indexOf(':')
    const field = colon === -1 ? l : l.slice(0, colon)
    let value = colon === -1 ? '' : l.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') data.push(value)
    else if (field === 'event') type = value
    else if (field === 'id' && !value.includes('\0')) { id = value; lastId = id }
    else if (field === 'retry' && /^\d+$/.test(value)) handlers.onRetry?.(Number(value))
  }
  return {
    push (text: string) {
      if (first && text.length) { if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); first = false }
      buffer += text
      let m: RegExpExecArray | null
      const eol = /\r\n|\r|\n/g
      let start = 0
      while ((m = eol.exec(buffer)) !== null) {
        // a CR at the very end may be the first half of a CRLF: wait for the next chunk
        if (m[0] === '\r' && m.index === buffer.length - 1) break
        line(buffer.slice(start, m.index))
        start = m.index + m[0].length
      }
      buffer = buffer.slice(start)
    },
    /** the id of the last event that set one (what Last-Event-ID carries) */
    get lastEventId () { return lastId },
    set lastEventId (v: string | undefined) { lastId = v; id = v }
  }
}

const FINAL_STATUSES = new Set([400, 401, 403, 404, 410, 429])

export async function followReport (baseUrl: string, reportId: string, opts: FollowOptions): Promise<FollowResult> {
  const doFetch = opts.fetch ?? fetch
  const url = new URL(`/api/v1/sse/${encodeURIComponent(reportId)}`, baseUrl)
  let lastEventId = opts.lastEventId
  let retryMs = 3000
  let retries = 0
  const maxRetries = opts.maxRetries ?? 5
  for (;;) {
    opts.signal?.throwIfAborted()
    const token = typeof opts.token === 'function' ? await opts.token() : opts.token
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${token}` }
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
    let res: Response | undefined
    try {
      res = await doFetch(url, { headers, cache: 'no-store', ...(opts.signal ? { signal: opts.signal } : {}) })
    } catch (err) {
      if (opts.signal?.aborted) throw err
    }
    if (res) {
      if (res.status === 204) return { outcome: 'finished', lastEventId }
      if (!res.ok || !res.body) {
        const body = await res.json().catch(() => undefined)
        if (FINAL_STATUSES.has(res.status) || !res.body) throw new ApiError(res.status, body)
      } else {
        let final: FollowResult | undefined
        const parser = parseEventStream({
          onRetry: (ms) => { retryMs = ms },
          onEvent: (raw) => {
            if (final) return
            retries = 0
            if (raw.id !== undefined) lastEventId = raw.id
            if (raw.type !== 'status' && raw.type !== 'done' && raw.type !== 'end') return
            const event = { type: raw.type, id: raw.id, data: JSON.parse(raw.data) } as ReportEvent
            opts.onEvent?.(event)
            if (event.type === 'done') final = { outcome: 'done', lastEventId, done: event.data }
            else if (event.type === 'end') final = { outcome: 'end', lastEventId, end: event.data }
          }
        })
        parser.lastEventId = lastEventId
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
        try {
          while (!final) {
            const { value, done } = await reader.read()
            if (done) break
            parser.push(value)
          }
        } catch (err) {
          if (opts.signal?.aborted) throw err
          // a dropped connection: resume below
        } finally {
          if (final) await reader.cancel().catch(() => {})
          reader.releaseLock()
        }
        if (final) return final
      }
    }
    if (++retries > maxRetries) throw new Error(`the event stream of report ${reportId} dropped ${retries} times in a row`)
    await delay(retryMs, opts.signal)
  }
}

function delay (ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason) }, { once: true })
  })
}
