// postgres.js runs a statement sent with `unsafe()` unprepared unless that call says otherwise, and
// drizzle-orm's postgres-js driver sends its ordinary queries that way whatever the client's own
// `prepare` option (still so in the latest release: see docs/decisions/the-house.md, Prepared
// statements). For a statement with parameters, postgres.js then asks the server for their types
// first (Parse, Describe, Flush, and a wait), then binds and executes: two round trips, and the
// server parses and plans the statement every time. Prepared, a statement is parsed once per
// connection and runs in one round trip after that: PostgreSQL's CPU per sign-in about halves (the
// figures are in the same section).
//
// `preparingClient` gives Drizzle, the service's own SQL and the import's batches a client whose
// `unsafe()` follows the client's `prepare` option (DATABASE_PREPARE), in a transaction or a savepoint
// too. postgres.js keeps a connection's statements until the connection closes (at most an hour: its
// max_lifetime); the service's statements have a fixed shape, so they are a few dozen per connection.
// Statements without parameters still go through the simple protocol.
import type postgres from 'postgres'
import type { PoolUsage } from './pool-usage.ts'

type Fn = (...args: unknown[]) => unknown

/**
 * The client, callable as before and with every member of it, except three that pass `prepare` on:
 * `unsafe(text, params, options)`, and `begin` and `savepoint`, whose callbacks get a transaction
 * client made the same way. The given client itself is not changed (postgres.js calls its own
 * `unsafe` internally, for `begin` and identifiers). `usage`, given for the pool's own client (not a
 * transaction's), counts its transactions and statements in flight (src/db/pool-usage.ts).
 */
export function preparingClient<T extends postgres.Sql> (sql: T, prepare = sql.options.prepare, usage?: PoolUsage): T {
  // the tagged template and every other member are the client's own, read through the prototype
  const client = function (this: unknown, ...args: unknown[]) {
    return (sql as unknown as Fn).apply(this, args)
  }
  Object.setPrototypeOf(client, sql)
  // a transaction's client has no `options` of its own: the setting is handed down
  const inside = (args: unknown[]) => args.map((a) => typeof a === 'function' ? (tx: postgres.Sql) => (a as Fn)(preparingClient(tx, prepare)) : a)
  const overrides: Record<string, Fn> = {
    unsafe: (text, params, options) => {
      const query = sql.unsafe(text as string, params as postgres.ParameterOrJSON<never>[], { ...(options as postgres.UnsafeQueryOptions), prepare })
      return usage ? usage.statement(query) : query
    }
  }
  // begin(fn), begin(options, fn), savepoint(fn), savepoint(name, fn)
  for (const name of ['begin', 'savepoint'] as const) {
    const method = (sql as unknown as Partial<Record<typeof name, Fn>>)[name]
    if (!method) continue
    overrides[name] = name === 'begin' && usage
      ? (...args) => usage.transaction(() => method.apply(sql, inside(args)) as Promise<unknown>)
      : (...args) => method.apply(sql, inside(args))
  }
  return Object.assign(client, overrides) as unknown as T
}
