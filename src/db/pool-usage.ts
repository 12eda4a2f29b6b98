// What this process asks of its PostgreSQL pool, counted where the service's client hands work to
// postgres.js (src/db/prepared-statements.ts): postgres.js keeps its pool's state to itself. A
// transaction holds one connection from BEGIN to COMMIT (or waits for one); a statement outside a
// transaction takes a free connection, opens one, or, with every connection busy, queues or pipelines
// behind a busy one. So work in flight up to the pool's size is the connections in use, and what
// is past it waits (docs/operations.md, What to alert on).

// Behind a pooler in transaction mode (`limit`, the pool's size), the same count is a gate: work
// past the pool's size waits here for a connection to come free instead of being sent behind a busy
// one. postgres.js would pipeline it there, and the pooler, which hands the server connection back
// when the statement ahead of it ends, drops the answer to the one sent behind it, which then waits
// forever (pgbouncer/pgbouncer#759; docs/operations.md, Behind PgBouncer).

export interface PoolUsage {
  /** transactions begun and not yet ended (waiting for a connection included) */
  transactions: number
  /** statements outside a transaction sent and not yet answered */
  statements: number
  /** count a transaction from its begin until its promise settles; `begin` starts it */
  transaction: <T>(begin: () => Promise<T>) => Promise<T>
  /** count a statement (a postgres.js query) from when postgres.js runs it until it is answered */
  statement: <T extends object>(query: T) => T
}

/** `limit`: at most this many transactions and statements handed to postgres.js at once (behind a pooler) */
export function createPoolUsage (limit?: number): PoolUsage {
  const gate = limit === undefined ? undefined : createGate(limit)
  const usage: PoolUsage = {
    transactions: 0,
    statements: 0,
    transaction (begin) {
      usage.transactions++
      const work = gate ? gate.run(begin) : begin()
      return work.finally(() => { usage.transactions-- })
    },
    statement (query) {
      // postgres.js runs a query through its handler once it is awaited (never, if it is not), and
      // settles it by its resolve or reject: counted between the two
      const q = query as unknown as { handler: (q: unknown) => unknown, resolve: (x: unknown) => void, reject: (x: unknown) => void }
      const { handler, resolve, reject } = q
      let running = false
      const done = () => {
        if (!running) return
        running = false
        usage.statements--
        gate?.release()
      }
      q.handler = Object.assign((self: unknown) => {
        if (!running) { running = true; usage.statements++ }
        return gate ? gate.enter(() => handler(self)) : handler(self)
      }, handler)
      q.resolve = (x) => { done(); resolve(x) }
      q.reject = (x) => { done(); reject(x) }
      return query
    }
  }
  return usage
}

/** at most `limit` pieces of work at once; the rest start in turn as earlier ones end */
function createGate (limit: number) {
  let running = 0
  const waiting: Array<() => void> = []
  const gate = {
    enter (start: () => void): void {
      if (running < limit) {
        running++
        start()
      } else {
        waiting.push(start)
      }
    },
    release (): void {
      const next = waiting.shift()
      // the place passes to the next in line, started once postgres.js has put the connection that
      // answered back in its pool (it does so after settling the query, in the same tick)
      if (next) queueMicrotask(next)
      else running--
    },
    run<T> (work: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        gate.enter(() => { work().then(resolve, reject) })
      }).finally(() => { gate.release() })
    }
  }
  return gate
}

/** connections in use and work waiting for one, of a pool of `max` */
export function poolLoad (usage: Pick<PoolUsage, 'transactions' | 'statements'>, max: number): { inUse: number, waiting: number } {
  const busy = usage.transactions + usage.statements
  return { inUse: Math.min(busy, max), waiting: Math.max(0, busy - max) }
}
