// The SSE fan-out hub (docs/architecture.md, An event from ingest to stream): this process's open report streams, keyed by report id, fed by the
// one handler of report_events that the whole process shares (src/services/events/: one LISTEN, or a
// broker channel per report with a stream here). An announcement '<reportId>:<seq>' costs one
// query per report that has local subscribers, never one per subscriber. A new stream subscribes
// before it reads its backlog and buffers live events meanwhile, so nothing falls between the two;
// events at or below what a stream already has are dropped, so nothing arrives twice.
//
// A stream also belongs to a session and a user: it ends with `event: end` (a reason, no id, so
// Last-Event-ID still names the last real event) when its session ends, its report is deleted or its
// Bearer token expires, and one user holds at most maxStreamsPerUser streams here
// (docs/decisions/sessions.md, Sessions and streams).
import type { ReportEvent } from '../reports/events.ts'
import { backlogOf, type Backlog, type EventStore } from './event-store.ts'
import { retriedWhileDown, type HubOptions } from './hub-common.ts'
import { streamOwners, type StreamOwner } from './owners.ts'
import { endEvent, formatEvent, PING, streamWriter, type EndReason, type Prepared, type PrepareOptions, type SseOutput } from './wire.ts'

export { eventStore, type EventStore } from './event-store.ts'
export type { StreamOwner } from './owners.ts'
export * from './wire.ts'

// What an open stream costs the hub: this object and its place in a Set. Everything else the request
// needed (the first events, the options) is let go once the stream starts, so that one process holds
// 10,000 streams (see docs/benchmarks.md, SSE streams).
interface Subscriber {
  reportId: string
  /** highest seq this client has; in buffering mode, what it had when it arrived */
  lastSeq: number
  out: SseOutput | null
  buffer: ReportEvent[]
  ended: boolean
  owner: StreamOwner | undefined
  /** set when the service ended the stream before it started: start() then sends only this */
  endedFor: EndReason | undefined
}

/** the buffer of a stream that is live or over: never written to, shared */
const NO_EVENTS: ReportEvent[] = []

interface Group {
  subs: Set<Subscriber>
  /** highest seq fanned out to this group; a gap after it is read on the next announcement */
  lastSeq: number | undefined
  /** fan-outs of one report run one after another, so events leave in order */
  chain: Promise<void>
  /** the transport's subscription to the report, while it is being made (a broker) */
  watching: Promise<void> | undefined
}

/** otherStreams counts the user's alert streams (alert-hub.ts) */
export type SseHubOptions = HubOptions<EventStore>

export function createSseHub (opts: SseHubOptions) {
  const { store } = opts
  const maxBuffered = opts.maxBufferedBytes ?? 1024 * 1024
  const maxPerUser = opts.maxStreamsPerUser ?? Infinity
  const groups = new Map<string, Group>()
  const owners = streamOwners<Subscriber>()
  let closed = false
  let count = 0

  function join (reportId: string, lastSeq: number, owner: StreamOwner | undefined): Subscriber {
    let g = groups.get(reportId)
    if (!g) {
      g = { subs: new Set(), lastSeq: undefined, chain: Promise.resolve(), watching: opts.watch?.(reportId) }
      groups.set(reportId, g)
    }
    const sub: Subscriber = { reportId, lastSeq, out: null, buffer: [], ended: false, owner, endedFor: undefined }
    g.subs.add(sub)
    count++
    owners.add(sub)
    return sub
  }

  function leave (sub: Subscriber, end: boolean) {
    if (sub.ended) return
    sub.ended = true
    sub.buffer = NO_EVENTS
    const g = groups.get(sub.reportId)
    if (g?.subs.delete(sub)) {
      count--
      if (g.subs.size === 0) {
        groups.delete(sub.reportId)
        opts.unwatch?.(sub.reportId)
      }
    }
    owners.remove(sub)
    if (end && sub.out) {
      try { sub.out.end() } catch {}
    }
  }

  const { write, endWith } = streamWriter<Subscriber>(maxBuffered, leave)

  /** `chunk` is the event's wire form, when the caller has it already */
  function deliver (sub: Subscriber, e: ReportEvent, chunk?: string) {
    if (sub.ended) return
    if (!sub.out) { sub.buffer.push(e); return }
    if (e.seq <= sub.lastSeq) return
    sub.lastSeq = e.seq
    write(sub, chunk ?? formatEvent(e.kind, e.data, e.seq))
    if (e.kind === 'done') leave(sub, true)
  }

  function fanOut (g: Group, events: ReportEvent[]) {
    for (const e of events) {
      if (g.lastSeq === undefined || e.seq > g.lastSeq) g.lastSeq = e.seq
      // formatted once for the whole report, not once per stream
      const chunk = formatEvent(e.kind, e.data, e.seq)
      for (const sub of [...g.subs]) deliver(sub, e, chunk)
    }
  }

  const retried = (task: () => Promise<void>) => retriedWhileDown(task, () => closed)

  function enqueue (reportId: string, g: Group, task: () => Promise<void>) {
    g.chain = g.chain.then(() => retried(task)).catch((err: Error) => {
      // The events this read would have carried are in the table, but no announcement may follow
      // (a done is the last): end the report's streams, whose clients reconnect with Last-Event-ID
      // and read them there.
      opts.log?.warn({ err: { message: err.message }, reportId }, 'report event fan-out failed; its streams end and resume with Last-Event-ID')
      g.lastSeq = undefined
      for (const sub of [...g.subs]) leave(sub, true)
    })
  }

  // A stream between its backlog read and start(). An object rather than closures over prepare()'s
  // scope: the stream's close listener holds it (for cancel) as long as the connection lasts, and
  // after start() it holds nothing but the subscriber.
  class PreparedStream {
    readonly noContent = false
    sub: Subscriber
    /** the current state, when the report has no event yet */
    initial: string
    first: ReportEvent[]

    constructor (sub: Subscriber, initial: string, first: ReportEvent[]) {
      this.sub = sub
      this.initial = initial
      this.first = first
    }

    cancel (): void {
      leave(this.sub, false)
    }

    start (out: SseOutput, preamble = ''): void {
      const { sub, initial, first } = this
      this.initial = ''
      this.first = NO_EVENTS
      if (!sub.ended && sub.owner && opts.sessionEnded?.(sub.owner.sid)) endWith(sub, 'session-ended')
      if (sub.ended) {
        // ended before it started: by the service (its end event alone), or by its client or a shutdown
        if (sub.endedFor) out.write(preamble + endEvent(sub.endedFor))
        out.end()
        return
      }
      sub.out = out
      if (closed) { leave(sub, true); return }
      const buffered = sub.buffer
      sub.buffer = NO_EVENTS
      const head = preamble + initial
      if (head) write(sub, head)
      for (const e of first) deliver(sub, e)
      for (const e of buffered) deliver(sub, e)
    }
  }

  return {
    /** the NOTIFY handler: '<reportId>:<seq>' */
    notify (payload: string): void {
      const i = payload.lastIndexOf(':')
      const reportId = payload.slice(0, i)
      const seq = Number(payload.slice(i + 1))
      const g = groups.get(reportId)
      if (!g || i < 0 || !Number.isSafeInteger(seq)) return
      if (g.lastSeq !== undefined && seq <= g.lastSeq) return
      enqueue(reportId, g, async () => {
        if (g.lastSeq !== undefined && seq <= g.lastSeq) return
        fanOut(g, await store.range(reportId, g.lastSeq ?? seq - 1, seq))
      })
    },

    /** the LISTEN (re)connected: announcements may have been missed, so read what came after */
    relisten (): void {
      for (const [reportId, g] of groups) {
        enqueue(reportId, g, async () => {
          if (g.subs.size === 0) return
          const from = g.lastSeq ?? Math.min(...[...g.subs].map((s) => s.lastSeq))
          fanOut(g, await store.after(reportId, from))
        })
      }
    },

    /**
     * Subscribe, then read what the client is missing. 204 (noContent) when the report is over and
     * the client has its last event. The caller writes the headers and calls start(), or cancel().
     */
    async prepare (reportId: string, o: PrepareOptions): Promise<Prepared> {
      const sub = join(reportId, o.lastEventId ?? 0, o.owner)
      let backlog: Backlog
      try {
        const watching = groups.get(reportId)?.watching
        if (watching) await watching
        backlog = await backlogOf(store, reportId, o.lastEventId, () => { sub.lastSeq = 0 })
      } catch (err) {
        leave(sub, false)
        throw err
      }
      if (backlog.noContent) {
        leave(sub, false)
        return { noContent: true }
      }
      const { current, first } = backlog
      return new PreparedStream(sub, current && first.length === 0 ? formatEvent('status', o.initial) : '', first)
    },

    /** this user holds maxStreamsPerUser here: asked with no await before prepare(), which counts the stream at once */
    full: (userId: string): boolean => owners.countOf(userId) + (opts.otherStreams?.(userId) ?? 0) >= maxPerUser,
    /** the report streams this user holds here */
    streamsOf: (userId: string): number => owners.countOf(userId),

    /** a session ended: its streams end with `event: end` */
    endSession (sid: string): void {
      for (const sub of owners.ofSession(sid)) endWith(sub, 'session-ended')
    },
    /** a report was deleted: its streams end with `event: end` */
    endReport (reportId: string): void {
      const g = groups.get(reportId)
      if (g) for (const sub of [...g.subs]) endWith(sub, 'report-deleted')
    },

    /** the reports with open streams here */
    reportIds: (): string[] => [...groups.keys()],
    /** end the Bearer streams whose token has expired by nowMs (a timer calls this every second) */
    expire (nowMs: number): void {
      for (const sub of owners.expiredBy(nowMs)) endWith(sub, 'token-expired')
    },

    /** a comment on every open stream, so that proxies keep idle ones open */
    ping (): void {
      for (const g of groups.values()) for (const sub of g.subs) if (sub.out) write(sub, PING)
    },

    /** shutdown: end every stream; their clients resume elsewhere with Last-Event-ID */
    closeAll (): void {
      closed = true
      for (const g of [...groups.values()]) for (const sub of [...g.subs]) leave(sub, true)
    },

    subscriberCount: (): number => count,
    reportCount: (): number => groups.size
  }
}

export type SseHub = ReturnType<typeof createSseHub>
