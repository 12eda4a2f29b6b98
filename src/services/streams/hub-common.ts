// What the report hub (hub.ts) and the alert hub (alert-hub.ts) share: the options a hub takes beside
// its store, and the retry of a read the database could not answer.
import { setTimeout as sleep } from 'node:timers/promises'
import { isDatabaseDown } from '../../db/client.ts'

export interface HubLog { warn: (obj: object, msg: string) => void }

export interface HubOptions<Store> {
  store: Store
  log?: HubLog
  /** a client this far behind is cut off; it reconnects with Last-Event-ID and catches up */
  maxBufferedBytes?: number
  /** open streams one user may hold here; prepare() refuses the next (default: no limit) */
  maxStreamsPerUser?: number
  /** the user's streams of the other hub on this instance, counted toward the same limit */
  otherStreams?: (userId: string) => number
  /** whether a session has ended: a stream whose session ended while it was prepared ends at start */
  sessionEnded?: (sid: string) => boolean
  /**
   * the first stream of a key (a report, a user) opened here: the events transport subscribes to it
   * (a broker; nothing with NOTIFY, which hears every key). A promise is waited for before the
   * stream's backlog is read, so that nothing falls between the two.
   */
  watch?: (key: string) => Promise<void> | undefined
  /** the last stream of a key here ended */
  unwatch?: (key: string) => void
}

/** a read the database could not answer is tried this often, this far apart (5 s in all) */
const READ_ATTEMPTS = 11
const READ_RETRY_MS = 500

/**
 * `task`, tried again while the database is away, until the hub closes. Right after an outage the
 * LISTEN connection can be back before the pool's connections are, and the announcement that follows
 * a reconnect would otherwise end every open stream of the instance.
 */
export async function retriedWhileDown (task: () => Promise<void>, closed: () => boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await task()
    } catch (err) {
      if (closed() || attempt >= READ_ATTEMPTS || !isDatabaseDown(err)) throw err
      await sleep(READ_RETRY_MS)
    }
  }
}
