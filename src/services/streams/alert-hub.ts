// The users' alert streams (GET /sse/alerts; docs/decisions/watches-and-alerts.md, Watches and
// alerts): this process's open alert streams, keyed by user, fed by the one handler of 'alerts' the
// whole process shares (one LISTEN, or a broker channel per user with a stream here).
// '<userId>:<last seq>' announces a committed batch of that user's alerts; it costs one read per
// user with streams here, from the lowest seq those streams have, never one per stream. As in the
// report hub (hub.ts), a new stream subscribes before it reads its backlog and buffers live alerts
// meanwhile, and an alert at or below what a stream has is dropped, so nothing arrives twice.
//
// A stream belongs to a session and a user like a report stream: it ends with `event: end` when its
// session ends or its Bearer token expires, and counts toward the user's SSE_MAX_STREAMS_PER_USER.
import type { AlertEvent, AlertStore } from './alert-store.ts'
import { retriedWhileDown, type HubOptions } from './hub-common.ts'
import { streamOwners, type StreamOwner } from './owners.ts'
import { endEvent, formatEvent, PING, streamWriter, type EndReason, type SseOutput } from './wire.ts'

export { alertStore, type AlertStore, type AlertEvent } from './alert-store.ts'

interface Subscriber {
  userId: string
  /** the highest seq this client has; undefined while a stream without Last-Event-ID reads where it starts */
  lastSeq: number | undefined
  out: SseOutput | null
  buffer: AlertEvent[]
  ended: boolean
  owner: StreamOwner | undefined
  /** set when the service ended the stream before it started: start() then sends only this */
  endedFor: EndReason | undefined
}

const NO_EVENTS: AlertEvent[] = []

interface Group {
  subs: Set<Subscriber>
  /** reads for one user run one after another, so alerts leave in order */
  chain: Promise<void>
  /** the transport's subscription to the user's alerts, while it is being made (a broker) */
  watching: Promise<void> | undefined
}

/** otherStreams counts the user's report streams (hub.ts) */
export type AlertHubOptions = HubOptions<AlertStore>

/** a prepared alert stream: subscribed and buffering; start() writes its backlog and goes live */
export interface PreparedAlerts {
  start: (out: SseOutput, preamble?: string) => void
  cancel: () => void
}

export function createAlertHub (opts: AlertHubOptions) {
  const { store } = opts
  const maxBuffered = opts.maxBufferedBytes ?? 1024 * 1024
  const maxPerUser = opts.maxStreamsPerUser ?? Infinity
  const groups = new Map<string, Group>()
  const owners = streamOwners<Subscriber>()
  let closed = false

  function leave (sub: Subscriber, end: boolean) {
    if (sub.ended) return
    sub.ended = true
    sub.buffer = NO_EVENTS
    const g = groups.get(sub.userId)
    if (g?.subs.delete(sub) && g.subs.size === 0) {
      groups.delete(sub.userId)
      opts.unwatch?.(sub.userId)
    }
    owners.remove(sub)
    if (end && sub.out) {
      try { sub.out.end() } catch {}
    }
  }

  const { write, endWith } = streamWriter<Subscriber>(maxBuffered, leave)

  function deliver (sub: Subscriber, e: AlertEvent, chunk?: string) {
    if (sub.ended) return
    if (!sub.out) { sub.buffer.push(e); return }
    if (sub.lastSeq !== undefined && e.seq <= sub.lastSeq) return
    sub.lastSeq = e.seq
    write(sub, chunk ?? formatEvent('alert', e.alert, e.seq))
  }

  /** the lowest seq a stream of the group has; undefined when none knows yet where it starts */
  function lowest (g: Group): number | undefined {
    let low: number | undefined
    for (const sub of g.subs) if (sub.lastSeq !== undefined && (low === undefined || sub.lastSeq < low)) low = sub.lastSeq
    return low
  }

  const retried = (task: () => Promise<void>) => retriedWhileDown(task, () => closed)

  /** read the user's alerts after what the group's streams have, and send each stream what it lacks */
  function catchUp (userId: string, g: Group, upTo?: number) {
    g.chain = g.chain.then(() => retried(async () => {
      const from = lowest(g)
      // no stream knows where it starts yet: each reads its own backlog after it learns
      if (from === undefined || (upTo !== undefined && upTo <= from)) return
      for (const e of await store.after(userId, from)) {
        // formatted once for all the user's streams
        const chunk = formatEvent('alert', e.alert, e.seq)
        for (const sub of [...g.subs]) deliver(sub, e, chunk)
      }
    })).catch((err: Error) => {
      // the alerts are in the table: the streams end, and their clients resume with Last-Event-ID
      opts.log?.warn({ err: { message: err.message }, userId }, 'alert fan-out failed; the streams end and resume with Last-Event-ID')
      for (const sub of [...g.subs]) leave(sub, true)
    })
  }

  class Prepared implements PreparedAlerts {
    sub: Subscriber
    first: AlertEvent[]

    constructor (sub: Subscriber, first: AlertEvent[]) {
      this.sub = sub
      this.first = first
    }

    cancel (): void {
      leave(this.sub, false)
    }

    start (out: SseOutput, preamble = ''): void {
      const { sub, first } = this
      this.first = NO_EVENTS
      if (!sub.ended && sub.owner && opts.sessionEnded?.(sub.owner.sid)) endWith(sub, 'session-ended')
      if (sub.ended) {
        if (sub.endedFor) out.write(preamble + endEvent(sub.endedFor))
        out.end()
        return
      }
      sub.out = out
      if (closed) { leave(sub, true); return }
      const buffered = sub.buffer
      sub.buffer = NO_EVENTS
      if (preamble) write(sub, preamble)
      for (const e of first) deliver(sub, e)
      for (const e of buffered) deliver(sub, e)
    }
  }

  const streamsOf = (userId: string): number => owners.countOf(userId)

  return {
    /** the NOTIFY handler: '<userId>:<last seq>' */
    notify (payload: string): void {
      const i = payload.lastIndexOf(':')
      const userId = payload.slice(0, i)
      const seq = Number(payload.slice(i + 1))
      const g = groups.get(userId)
      if (!g || i < 0 || !Number.isSafeInteger(seq)) return
      catchUp(userId, g, seq)
    },

    /** the LISTEN (re)connected: announcements may have been missed, so read what came after */
    relisten (): void {
      for (const [userId, g] of groups) catchUp(userId, g)
    },

    /**
     * Subscribe, then read the backlog: the alerts after lastEventId, or (without one) nothing but
     * what commits from now on. The caller writes the headers and calls start(), or cancel().
     */
    async prepare (userId: string, o: { lastEventId?: number, owner?: StreamOwner }): Promise<PreparedAlerts> {
      let g = groups.get(userId)
      if (!g) groups.set(userId, g = { subs: new Set(), chain: Promise.resolve(), watching: opts.watch?.(userId) })
      const sub: Subscriber = { userId, lastSeq: o.lastEventId, out: null, buffer: [], ended: false, owner: o.owner, endedFor: undefined }
      g.subs.add(sub)
      owners.add(sub)
      try {
        if (g.watching) await g.watching
        // An announcement heard before the start is known is skipped for this stream; the read
        // after it, made once the start is known, finds what that announcement carried.
        if (sub.lastSeq === undefined) sub.lastSeq = await store.last(userId)
        return new Prepared(sub, await store.after(userId, sub.lastSeq))
      } catch (err) {
        leave(sub, false)
        throw err
      }
    },

    /** this user holds maxStreamsPerUser here, report streams included: asked with no await before prepare() */
    full: (userId: string): boolean => streamsOf(userId) + (opts.otherStreams?.(userId) ?? 0) >= maxPerUser,
    streamsOf,

    /** a session ended: its streams end with `event: end` */
    endSession (sid: string): void {
      for (const sub of owners.ofSession(sid)) endWith(sub, 'session-ended')
    },
    /** end the Bearer streams whose token has expired by nowMs */
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

    userCount: (): number => groups.size
  }
}

export type AlertHub = ReturnType<typeof createAlertHub>
