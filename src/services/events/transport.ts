// How instances tell each other what happened (docs/decisions/reports-and-streams.md, Events
// through a broker): one interface, two transports chosen at start by EVENTS_URL. Broadcast
// channels (revocations, deletions, cache changes) reach every instance; scoped channels (a
// report's events, a user's alerts) carry '<key>:<rest>' payloads and reach, with a broker, only
// the instances that asked for that key while a stream of it is open there.
import type { Db } from '../../db/client.ts'

export type Handler = (payload: string) => void

/** the channels whose payloads begin with the key a stream is about: the report's or the user's id */
export const SCOPED_CHANNELS: ReadonlySet<string> = new Set(['report_events', 'alerts'])

/** '<key>:<rest>' -> key (ids never hold ':') */
export function keyOf (payload: string): string {
  const i = payload.lastIndexOf(':')
  return i < 0 ? payload : payload.slice(0, i)
}

/** what a writer of events needs: the web instance's transport, or a worker's */
export interface EventPublisher {
  /** announce a change already committed */
  publish: (channel: string, payload: string) => Promise<void>
  /**
   * announce from inside the transaction that writes the events. NOTIFY goes with the transaction
   * (delivered at commit, never after a rollback); a broker is published to by the returned
   * function, which the caller runs after the commit.
   */
  staged: (tx: Db, channel: string, payloads: string[]) => Promise<() => Promise<void>>
}

export interface TransportState {
  transport: 'notify' | 'redis'
  /** the broker connection is up; undefined where the transport cannot tell (LISTEN) */
  connected: boolean | undefined
  /** times the subscriptions were made again after a lost connection */
  reconnects: number
}

export interface EventTransport extends EventPublisher {
  /** handle every message on channel; onListen runs on each (re)connect, to catch up on anything missed */
  on: (channel: string, handler: Handler, onListen?: () => void) => Promise<void>
  /**
   * this instance needs the messages of key on a scoped channel (its first stream of it opened);
   * a promise resolves once they will arrive, undefined when nothing needs waiting for
   */
  subscribe: (channel: string, key: string) => Promise<void> | undefined
  /** the last stream of key here ended */
  unsubscribe: (channel: string, key: string) => void
  state: () => TransportState
  close: () => Promise<void>
}
