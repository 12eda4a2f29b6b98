// Events through a broker, Redis (EVENTS_URL=redis://…; docs/decisions/reports-and-streams.md,
// Events through a broker). A scoped channel's message goes to the Redis channel of its key
// ('pir-events:report_events:<id>', 'pir-events:alerts:<userId>'), which this process subscribes to
// while a stream of that key is open here and leaves when the last one ends: the work an instance
// does per event does not grow with the number of instances. Broadcast channels stay on the
// database's NOTIFY (`broadcast`): their triggers fire for every writer, the CLIs and an operator's
// psql included, and every instance must hear them anyway.
//
// Nothing is lost to the broker: the events are rows written in the transaction that causes them,
// the message only says "read". When the subscriber's connection comes back (a broker restart, a cut
// connection), it subscribes to every key it holds again and only then calls the channels' onListen,
// the same catch-up from the database as after a LISTEN reconnect. A subscribe asked while the
// connection is away is made by that reconnect, so a new stream never waits on a missing broker.
import { Redis } from 'ioredis'
import { keyOf, SCOPED_CHANNELS, type EventPublisher, type EventTransport, type Handler } from './transport.ts'

interface Log {
  warn: (o: object, m: string) => void
  info: (o: object, m: string) => void
  error: (o: object, m: string) => void
}

const PREFIX = 'pir-events:'
/** a subscription the broker has not confirmed by then is left to the next reconnect's catch-up */
const SUBSCRIBE_WAIT_MS = 2000
/** channels per SUBSCRIBE when a reconnect makes them all again */
const SUBSCRIBE_BATCH = 1000

/** quickly back after a restart (as the database connections, src/db/client.ts), jittered, at most half a second apart */
function retryDelay (times: number): number {
  return Math.round(Math.min(50 * 2 ** times, 500) * (0.5 + Math.random() / 2))
}

const redisChannel = (channel: string, key: string) => `${PREFIX}${channel}:${key}`

/**
 * The writer's side: a process that only publishes (the worker) holds this connection alone. A
 * publish while the broker is away waits for it (about 10 s of retries), then fails as a NOTIFY
 * would; the events are in the database either way.
 */
export function createRedisPublisher (url: string, broadcast: EventPublisher): EventPublisher & { close: () => Promise<void> } {
  const publisher = new Redis(url, { connectTimeout: 2000, retryStrategy: retryDelay, maxRetriesPerRequest: 20 })
  publisher.on('error', () => {})

  async function publishScoped (channel: string, payloads: string[]): Promise<void> {
    if (payloads.length === 1) {
      await publisher.publish(redisChannel(channel, keyOf(payloads[0])), payloads[0])
      return
    }
    const pipeline = publisher.pipeline()
    for (const p of payloads) pipeline.publish(redisChannel(channel, keyOf(p)), p)
    for (const [err] of await pipeline.exec() ?? []) if (err) throw err
  }

  return {
    async publish (channel, payload) {
      if (!SCOPED_CHANNELS.has(channel)) return await broadcast.publish(channel, payload)
      await publishScoped(channel, [payload])
    },
    async staged (tx, channel, payloads) {
      if (!SCOPED_CHANNELS.has(channel)) return await broadcast.staged(tx, channel, payloads)
      return async () => { if (payloads.length > 0) await publishScoped(channel, payloads) }
    },
    async close () {
      // what is being published goes out first, unless the broker is away
      await Promise.race([publisher.quit().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())])
      publisher.disconnect()
    }
  }
}

export interface RedisTransportOptions {
  url: string
  /** the transport of the broadcast channels (LISTEN/NOTIFY) */
  broadcast: EventTransport
  log: Log
}

export function createRedisTransport (opts: RedisTransportOptions): EventTransport {
  const { broadcast, log } = opts
  // the subscriptions are made again by the ready handler below, which then catches up
  const subscriber = new Redis(opts.url, { connectTimeout: 2000, retryStrategy: retryDelay, autoResubscribe: false, maxRetriesPerRequest: null })
  const publisher = createRedisPublisher(opts.url, broadcast)
  const scoped = new Map<string, { handlers: Set<Handler>, reconnects: Set<() => void> }>()
  /** the Redis channels this process wants: one per key with a stream here */
  const wanted = new Set<string>()
  let everReady = false
  let connected = false
  let reconnects = 0
  let closing = false

  subscriber.on('message', (name: string, payload: string) => {
    const rest = name.slice(PREFIX.length)
    const channel = rest.slice(0, rest.indexOf(':'))
    const entry = scoped.get(channel)
    if (!entry) return
    for (const h of entry.handlers) {
      try { h(payload) } catch (err) { log.error({ err, channel }, 'event handler failed') }
    }
  })
  subscriber.on('ready', () => {
    if (everReady) {
      reconnects++
      log.info({ subscriptions: wanted.size }, 'events broker connection back: subscribing again and catching up from the database')
    }
    everReady = true
    connected = true
    resubscribe().then(() => {
      for (const entry of scoped.values()) for (const r of entry.reconnects) r()
    }, (err: Error) => {
      // the connection went again: the next ready tries again
      log.warn({ err: { message: err.message } }, 'subscribing to the events broker failed; retrying at the next connection')
    })
  })
  subscriber.on('close', () => {
    if (connected && !closing) log.warn({}, 'events broker connection lost: reconnecting; streams catch up from the database when it is back')
    connected = false
  })
  // connection errors are retried (retryDelay); the close above says it once per outage
  subscriber.on('error', () => {})

  async function resubscribe (): Promise<void> {
    const all = [...wanted]
    for (let i = 0; i < all.length; i += SUBSCRIBE_BATCH) await subscriber.subscribe(...all.slice(i, i + SUBSCRIBE_BATCH))
  }

  return {
    async on (channel, handler, onListen) {
      if (!SCOPED_CHANNELS.has(channel)) return await broadcast.on(channel, handler, onListen)
      let entry = scoped.get(channel)
      if (!entry) scoped.set(channel, entry = { handlers: new Set(), reconnects: new Set() })
      entry.handlers.add(handler)
      if (onListen) entry.reconnects.add(onListen)
    },

    subscribe (channel, key) {
      const name = redisChannel(channel, key)
      wanted.add(name)
      if (subscriber.status !== 'ready') return undefined
      let timer: NodeJS.Timeout | undefined
      return Promise.race([
        subscriber.subscribe(name).then(() => {}),
        new Promise<void>((resolve) => { timer = setTimeout(resolve, SUBSCRIBE_WAIT_MS) })
      ]).catch(() => {}).finally(() => clearTimeout(timer))
    },

    unsubscribe (channel, key) {
      const name = redisChannel(channel, key)
      if (!wanted.delete(name)) return
      if (subscriber.status === 'ready') subscriber.unsubscribe(name).catch(() => {})
    },

    publish: publisher.publish,
    staged: publisher.staged,

    state: () => ({ transport: 'redis', connected, reconnects }),

    async close () {
      closing = true
      subscriber.disconnect()
      await publisher.close()
      await broadcast.close()
    }
  }
}
