// The events transport of a process, chosen at start by EVENTS_URL
// (docs/decisions/reports-and-streams.md, Events through a broker): empty, PostgreSQL
// LISTEN/NOTIFY; redis://…, Redis for the streams' channels.
import type { Database } from '../../db/client.ts'
import { createNotifyTransport, notifyPublisher } from './notify-transport.ts'
import { createRedisPublisher, createRedisTransport } from './redis-transport.ts'
import type { EventPublisher, EventTransport } from './transport.ts'

export * from './transport.ts'
export { notifyPublisher } from './notify-transport.ts'

interface Log {
  warn: (o: object, m: string) => void
  info: (o: object, m: string) => void
  error: (o: object, m: string) => void
}

export function createEventTransport (opts: { url: string, database: Database, log: Log }): EventTransport {
  const notify = createNotifyTransport(opts.database, opts.log)
  return opts.url ? createRedisTransport({ url: opts.url, broadcast: notify, log: opts.log }) : notify
}

/** a process that writes events but holds no stream (the worker): NOTIFY, or a broker connection to publish on */
export function createEventPublisher (opts: { url: string, database: Database }): EventPublisher & { close: () => Promise<void> } {
  const notify = notifyPublisher(opts.database)
  return opts.url ? createRedisPublisher(opts.url, notify) : { ...notify, close: async () => {} }
}
