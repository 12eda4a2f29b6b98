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
