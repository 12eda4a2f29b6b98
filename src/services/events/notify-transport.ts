// Events through PostgreSQL LISTEN/NOTIFY, the embedded default (EVENTS_URL empty): one LISTEN per
// channel per process, fanned out in memory. Every instance hears every message of every channel;
// the hubs drop those about streams they do not hold, so scoped subscriptions cost nothing here.
import { sql } from 'drizzle-orm'
import type { Database } from '../../db/client.ts'
import type { EventPublisher, EventTransport, Handler } from './transport.ts'

interface Log { error: (o: object, m: string) => void }

/** NOTIFY as a writer sees it: the worker's publisher, and the default of writers given none */
export function notifyPublisher (database: Database): EventPublisher {
  return {
    publish: (channel, payload) => database.notify(channel, payload),
    async staged (tx, channel, payloads) {
      // sql.param: a bare array in drizzle's sql`` is spread into a list of parameters, not sent as one array
      if (payloads.length > 0) await tx.execute(sql`select pg_notify(${channel}, p) from unnest(${sql.param(payloads)}::text[]) as p`)
      return noop
    }
  }
}

const noop = async (): Promise<void> => {}

export function createNotifyTransport (database: Database, log: Log): EventTransport {
  const channels = new Map<string, { handlers: Set<Handler>, reconnects: Set<() => void> }>()
  const unlisteners: Array<() => Promise<void>> = []
  // postgres.js calls every channel's onListen at each reconnect: the first channel's calls count them
  let first: string | undefined
  let listens = 0

  return {
    ...notifyPublisher(database),
    async on (channel, handler, onListen) {
      let entry = channels.get(channel)
      if (!entry) {
        const created = { handlers: new Set<Handler>(), reconnects: new Set<() => void>() }
        entry = created
        channels.set(channel, created)
        first ??= channel
        const unlisten = await database.listen(channel, (payload) => {
          for (const h of created.handlers) {
            try { h(payload) } catch (err) { log.error({ err, channel }, 'event handler failed') }
          }
        }, () => {
          if (channel === first) listens++
          for (const r of created.reconnects) r()
        })
        unlisteners.push(unlisten)
      }
      entry.handlers.add(handler)
      if (onListen) entry.reconnects.add(onListen)
    },
    subscribe: () => undefined,
    unsubscribe: () => {},
    state: () => ({ transport: 'notify', connected: undefined, reconnects: Math.max(0, listens - 1) }),
    async close () {
      await Promise.allSettled(unlisteners.map((u) => u()))
    }
  }
}
