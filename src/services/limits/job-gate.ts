// At most `limit` jobs running at once, the others waiting in arrival order. argon2 runs its hashes
// on libuv's thread pool, which every other asynchronous crypto, fs, dns and zlib call shares: with
// a login storm's thousand hashes handed to the pool at once, each of those calls (and so the work of
// an account whose hash is done) would wait behind every hash queued before it. Held here, the
// hashes leave at least one thread free, and whatever else needs the pool waits for one job at most.
export interface JobGate {
  run: <T>(job: () => Promise<T>) => Promise<T>
  /** jobs running now */
  readonly running: number
  /** jobs waiting for a slot now */
  readonly waiting: number
  /** the most jobs that ever ran at once */
  readonly peak: number
}

export function createJobGate (limit: number): JobGate {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('a job gate needs a limit of at least 1')
  let running = 0
  let peak = 0
  // a queue with a moving head: shift() on a long array copies it
  let queue: Array<() => void> = []
  let head = 0

  function release () {
    if (head < queue.length) {
      const next = queue[head]
      queue[head++] = undefined as never
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head)
        head = 0
      }
      // the slot passes straight to the next job: running stays the same
      next()
    } else {
      running--
    }
  }

  return {
    async run<T> (job: () => Promise<T>): Promise<T> {
      if (running < limit) {
        running++
        peak = Math.max(peak, running)
      } else {
        await new Promise<void>((resolve) => queue.push(resolve))
      }
      try {
        return await job()
      } finally {
        release()
      }
    },
    get running () { return running },
    get waiting () { return queue.length - head },
    get peak () { return peak }
  }
}
