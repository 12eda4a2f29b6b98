// The one in-memory cache of the service: bounded (entries, and bytes if asked), each entry kept for
// at most ttlMs, the oldest out first. Most uses are views of database rows, read through on a miss
// (load) and kept correct by invalidation rather than by a query per request; a cache without a
// loader keeps what its owner computed (peek, then set), for results that cost more to compute than
// to look up (see docs/benchmarks.md, Caches on the hot paths).
//
// For views: The change notifications come from triggers (drizzle/0003):
// every instance drops a key when any process commits a change to it, and writers in this process
// also drop it themselves before answering, so a client reads its own writes at once.
//
// A load that was in flight when its key was invalidated may have read the row as it was before the
// change: its result is answered to the callers that were waiting for it, but never kept, and later
// callers start a load of their own. Entries also expire after `ttlMs`, a bound on staleness should a
// notification ever be lost while the LISTEN connection is down (its reconnect clears everything too).

export interface ViewCacheOptions<V> {
  /** reads a key that is not kept (get); without it the cache is filled by set alone */
  load?: (key: string) => Promise<V>
  /** whether a loaded value may be kept (e.g. only a ready report; never "not found"); all by default */
  keep?: (value: V) => boolean
  maxEntries: number
  ttlMs: number
  /** the memory an entry holds, in bytes, counted against maxBytes */
  bytes?: (value: V) => number
  maxBytes?: number
  now?: () => number
}

interface Entry<V> { value: V, at: number, bytes: number }
interface Flight<V> { promise: Promise<V>, stale: boolean }

export interface ViewCache<V> {
  get: (key: string) => Promise<V>
  /** the kept value, without loading */
  peek: (key: string) => V | undefined
  /** keep a value this process has just written (it is what the database now holds) */
  set: (key: string, value: V) => void
  invalidate: (key: string) => void
  clear: () => void
  readonly size: number
}

export function createViewCache<V> (opts: ViewCacheOptions<V>): ViewCache<V> {
  const { ttlMs, maxEntries } = opts
  const now = opts.now ?? Date.now
  const maxBytes = opts.maxBytes ?? Infinity
  const entries = new Map<string, Entry<V>>()
  const flights = new Map<string, Flight<V>>()
  let bytes = 0

  function drop (key: string) {
    const e = entries.get(key)
    if (!e) return
    entries.delete(key)
    bytes -= e.bytes
  }

  function keep (key: string, value: V) {
    drop(key)
    const size = opts.bytes?.(value) ?? 0
    if (size > maxBytes) return
    entries.set(key, { value, at: now(), bytes: size })
    bytes += size
    // the oldest entries go first (a Map iterates in insertion order)
    while (entries.size > maxEntries || bytes > maxBytes) drop(entries.keys().next().value!)
  }

  /** a load in flight for key is not kept, and is not joined by later callers */
  function forget (key: string) {
    const flight = flights.get(key)
    if (!flight) return
    flight.stale = true
    flights.delete(key)
  }

  // a cache whose entries never expire (ttlMs Infinity) does not read the clock on a hit
  const expires = ttlMs !== Infinity

  function peek (key: string): V | undefined {
    const e = entries.get(key)
    if (!e) return undefined
    if (expires && now() - e.at >= ttlMs) {
      drop(key)
      return undefined
    }
    return e.value
  }

  return {
    peek,
    async get (key) {
      const hit = peek(key)
      if (hit !== undefined) return hit
      const pending = flights.get(key)
      if (pending) return await pending.promise
      if (!opts.load) throw new Error('this cache has no loader: peek and set')
      const flight: Flight<V> = { promise: opts.load(key), stale: false }
      flights.set(key, flight)
      try {
        const value = await flight.promise
        if (!flight.stale && (opts.keep?.(value) ?? true)) keep(key, value)
        return value
      } finally {
        if (flights.get(key) === flight) flights.delete(key)
      }
    },
    set (key, value) {
      forget(key)
      keep(key, value)
    },
    invalidate (key) {
      drop(key)
      forget(key)
    },
    clear () {
      entries.clear()
      bytes = 0
      for (const f of flights.values()) f.stale = true
      flights.clear()
    },
    get size () { return entries.size }
  }
}
