// What the SSE hubs (src/services/streams/hub.ts, alert-hub.ts) write and to what: the wire form of events, the output
// a stream's bytes go to, and what a prepared stream looks like to its route.
import type { StatusEventData } from '../reports/events.ts'
import type { StreamOwner } from './owners.ts'
import type { SseEndData } from '../../../schemas/sse.ts'

/**
 * where a stream's bytes go (src/routes/streams/stream.ts). An event goes out as one string, formatted
 * once and written to every stream of its report, so an output can cache what it makes of it.
 */
export interface SseOutput {
  write: (chunk: string) => void
  end: () => void
  /** bytes written but not yet flushed to the client */
  buffered: () => number
}

/** the wire form of one event; without a seq (a synthetic state) it carries no id */
export function formatEvent (kind: string, data: unknown, seq?: number): string {
  return `${seq === undefined ? '' : `id: ${seq}\n`}event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`
}

export const PING = ': ping\n\n'

/** why a stream was ended by the service: the data of its last event, `event: end` */
export type EndReason = SseEndData['reason']

/** the wire form of the end event: no id, so a client resuming with Last-Event-ID resumes at the last real event */
export const endEvent = (reason: EndReason): string => formatEvent('end', { reason })

/** what writing needs of a hub's subscriber */
export interface WrittenStream {
  ended: boolean
  out: SseOutput | null
  /** set when the service ended the stream before it started: start() then sends only this */
  endedFor: EndReason | undefined
}

/**
 * write and endWith for a hub whose `leave(sub, end)` takes a stream out of its books (and ends its
 * output when `end`): a stream whose output throws, or holds more than maxBuffered unflushed bytes,
 * is left; a client that far behind reconnects with Last-Event-ID and catches up.
 */
export function streamWriter<S extends WrittenStream> (maxBuffered: number, leave: (sub: S, end: boolean) => void) {
  function write (sub: S, chunk: string) {
    if (sub.ended || !sub.out) return
    try {
      sub.out.write(chunk)
    } catch {
      leave(sub, true)
      return
    }
    if (sub.out.buffered() > maxBuffered) leave(sub, true)
  }

  /** the service ends a stream: its last words are `event: end` and why (sent at start if not started yet) */
  function endWith (sub: S, reason: EndReason) {
    if (sub.ended) return
    if (sub.out) write(sub, endEvent(reason))
    else sub.endedFor = reason
    leave(sub, true)
  }
  return { write, endWith }
}

/** a prepared stream: subscribed and buffering; start() writes its first events and goes live */
export type Prepared =
  | { noContent: true }
  | { noContent: false, start: (out: SseOutput, preamble?: string) => void, cancel: () => void }

export interface PrepareOptions {
  /** the client's Last-Event-ID: replay every event after it; absent = send the current state */
  lastEventId?: number
  /** the state to show when the report has no event yet (a draft) */
  initial: StatusEventData
  owner?: StreamOwner
}
