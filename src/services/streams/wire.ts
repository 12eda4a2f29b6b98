// What the SSE hub (src/services/streams/hub.ts) writes and to what: the wire form of events, the output
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
