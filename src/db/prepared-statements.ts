// postgres.js runs a statement sent with `unsafe()` unprepared unless told otherwise, and Drizzle
// sends every query that way with `prepare: false` (drizzle-orm issue #6096). For a statement with
// parameters, postgres.js then asks the server for their types first (Parse, Describe, Flush, and a
// wait), then binds and executes: two round trips, and the server parses and plans the statement
// every time. Prepared, a statement is parsed once per connection and runs in one round trip after
// that. Measured on a sign-in (four statements): PostgreSQL's CPU per sign-in 600-740 us -> 340-390,
// the service's 740-880 -> 625-670.
//
// This wraps the client so that every `unsafe()` (Drizzle's queries, the service's own SQL, the
// import's batches), in a transaction or not, follows the client's own `prepare` option
// (DATABASE_PREPARE). postgres.js keeps a connection's statements until the connection closes (at
// most an hour: its max_lifetime); the service's statements have a fixed shape, so they are a few
// dozen per connection. Statements without parameters still go through the simple protocol.
import type postgres from 'postgres'

type Fn = (...args: unknown[]) => unknown

// (a transaction's client has no `options` of its own: the setting is handed down)
export function preparedStatements<T extends postgres.Sql> (sql: T, prepare = sql.options.prepare): T {
  // begin(fn), begin(options, fn), savepoint(fn), savepoint(name, fn): the transaction's client too
  const inside = (args: unknown[]) => args.map((a) => typeof a === 'function' ? (tx: postgres.Sql) => (a as Fn)(preparedStatements(tx, prepare)) : a)
  return new Proxy(sql, {
    get (target, prop, receiver) {
      if (prop === 'unsafe') {
        return (text: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(text, params as postgres.ParameterOrJSON<never>[], { ...options, prepare })
      }
      if (prop === 'begin' || prop === 'savepoint') {
        const method = Reflect.get(target, prop, receiver) as Fn | undefined
        return method && ((...args: unknown[]) => method.apply(target, inside(args)))
      }
      return Reflect.get(target, prop, receiver)
    }
  })
}
