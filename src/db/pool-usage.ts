// What this process asks of its PostgreSQL pool, counted where the service's client hands work to
// postgres.js (src/db/prepared-statements.ts): postgres.js keeps its pool's state to itself. A
// transaction holds one connection from BEGIN to COMMIT (or waits for one); a statement outside a
// transaction takes a free connection, opens one, or, with every connection busy, queues or pipelines
// behind a busy one. So work in flight up to the pool's size is the connections in use, and what
// is past it waits (docs/operations.md, What to alert on).

export interface PoolUsage {
  /** transactions begun and not yet ended (waiting for a connection included) */
  transactions: number
  /** statements outside a transaction sent and not yet answered */
  statements: number
  /** count a transaction from its begin until its promise settles */
  transaction: <T>(work: Promise<T>) => Promise<T>
  /** count a statement (a postgres.js query) from when postgres.js runs it until it is answered */
  statement: <T extends object>(query: T) => T
}

export function createPoolUsage (): PoolUsage {
  const usage: PoolUsage = {
    transactions: 0,
    statements: 0,
    transaction (work) {
      usage.transactions++
      return work.finally(() => { usage.transactions-- })
    },
    statement (query) {
      // postgres.js runs a query through its handler once it is awaited (never, if it is not), and
      // settles it by its resolve or reject: counted between the two
      const q = query as unknown as { handler: (q: unknown) => unknown, resolve: (x: unknown) => void, reject: (x: unknown) => void }
      const { handler, resolve, reject } = q
      let running = false
      const done = () => { if (running) { running = false; usage.statements-- } }
      q.handler = Object.assign((self: unknown) => {
        if (!running) { running = true; usage.statements++ }
        return handler(self)
      }, handler)
      q.resolve = (x) => { done(); resolve(x) }
      q.reject = (x) => { done(); reject(x) }
      return query
    }
  }
  return usage
}

/** connections in use and work waiting for one, of a pool of `max` */
export function poolLoad (usage: Pick<PoolUsage, 'transactions' | 'statements'>, max: number): { inUse: number, waiting: number } {
  const busy = usage.transactions + usage.statements
  return { inUse: Math.min(busy, max), waiting: Math.max(0, busy - max) }
}
