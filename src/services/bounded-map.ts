// A Map with a bound on its entries: setting a key puts it last, and when the map is full the
// oldest-set entry goes first. For what is kept only to save recomputing it (verified tokens, issued
// tokens, cookie signatures): losing an entry costs a recomputation, never a wrong answer.
export interface BoundedMap<V> {
  get: (key: string) => V | undefined
  set: (key: string, value: V) => void
  readonly size: number
}

export function boundedMap<V> (max: number): BoundedMap<V> {
  const map = new Map<string, V>()
  return {
    get: (key) => map.get(key),
    set (key, value) {
      map.delete(key)
      if (map.size >= max) map.delete(map.keys().next().value!)
      map.set(key, value)
    },
    get size () { return map.size }
  }
}

/**
 * prefix + id, each made once (the last `max` ids kept): for rate-limit keys. The limiter's store
 * hashes its key on every request, and a key built afresh is a new string each time, hashed anew;
 * a kept one has its hash already.
 */
export function prefixedKeys (prefix: string, max = 10_000): (id: string) => string {
  const keys = boundedMap<string>(max)
  return (id) => {
    let key = keys.get(id)
    if (key === undefined) {
      key = prefix + id
      keys.set(id, key)
    }
    return key
  }
}
