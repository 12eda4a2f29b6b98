// The service's PostgreSQL client behind a pooler in transaction mode (DATABASE_DIRECT_URL names
// the database itself): no more work is handed to postgres.js at once than its pool has
// connections, so that nothing is pipelined behind a busy connection, whose answer PgBouncer hands
// to no one (src/db/pool-usage.ts; docs/operations.md, Behind PgBouncer). The gate on its own, then
// the client through TEST_POOLER_URL's pooler with far more work than connections.
import { sql } from 'drizzle-orm'
import t from '../tap.ts'
import { testPoolerUrl } from '../../src/config.ts'
import { createDatabase } from '../../src/db/client.ts'
import { createPoolUsage } from '../../src/db/pool-usage.ts'
import { freshDatabase, onPostgres } from '../helper.ts'
import { serviceDatabase } from '../db-template.ts'

/** what postgres.js hands the client: a query it runs through `handler` and settles by `resolve` */
function fakeQuery (started: string[], name: string) {
  const q = {
    resolve: (_: unknown) => {},
    reject: (_: unknown) => {},
    handler: (_: unknown) => { started.push(name) }
  }
  return q
}

t.test('the gate: at most `limit` at once, the rest in turn as earlier ones are answered', async (t) => {
  const usage = createPoolUsage(2)
  const started: string[] = []
  const queries = ['a', 'b', 'c', 'd'].map((name) => usage.statement(fakeQuery(started, name)))
  for (const q of queries) q.handler(q)
  t.same(started, ['a', 'b'], 'two handed on, two waiting')
  t.equal(usage.statements, 4, 'all four counted: two in use, two waiting')

  // a transaction waits its turn as well, behind the statements already waiting
  let begun = false
  const tx = usage.transaction(async () => { begun = true; return 'committed' })
  t.equal(usage.transactions, 1)
  t.notOk(begun, 'not begun while the pool is full')

  queries[0].resolve([])
  t.same(started, ['a', 'b'], 'the next starts only after this tick, once the connection is back in the pool')
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, ['a', 'b', 'c'], 'one answered, the next in line handed on')
  queries[1].reject(new Error('refused'))
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, ['a', 'b', 'c', 'd'], 'an error frees its place too')
  t.notOk(begun)
  queries[2].resolve([])
  t.equal(await tx, 'committed', 'the transaction ran once a place was free')
  t.equal(usage.transactions, 0)
  queries[3].resolve([])
  t.equal(usage.statements, 0, 'nothing in flight at the end')

  // a query answered twice (postgres.js settles once; the count must not go below zero either way)
  const again = usage.statement(fakeQuery(started, 'e'))
  again.handler(again)
  again.resolve([])
  again.resolve([])
  t.equal(usage.statements, 0)
})

t.test('without a pooler there is no gate: postgres.js gets every statement at once', async (t) => {
  const usage = createPoolUsage()
  const started: string[] = []
  const queries = ['a', 'b', 'c'].map((name) => usage.statement(fakeQuery(started, name)))
  for (const q of queries) q.handler(q)
  t.same(started, ['a', 'b', 'c'])
  t.equal(usage.statements, 3)
})

const skip = !onPostgres
  ? 'needs PostgreSQL (TEST_DATABASE_URL) and a pooler in transaction mode in front of it (TEST_POOLER_URL)'
  : testPoolerUrl ? false : 'needs a pooler in transaction mode (TEST_POOLER_URL; .ci/run starts one)'

t.test('through the pooler: far more statements and transactions than connections, all answered', { skip }, async (t) => {
  const database = await freshDatabase(t)
  const name = database.sql!.options.database
  const { url, directUrl } = serviceDatabase(name)
  // two connections, and statements with and without parameters mixed: postgres.js, let alone,
  // sends one with parameters (Parse, Describe, Flush) behind one without, and through PgBouncer
  // 1.18 in transaction mode that one is never answered
  const pooled = await createDatabase({ url, directUrl, max: 2, prepare: false })
  t.teardown(() => pooled.close())
  const work: Array<Promise<unknown>> = []
  for (let i = 0; i < 60; i++) {
    if (i % 3 === 0) work.push(pooled.query('select pg_sleep(0.005)'))
    else if (i % 3 === 1) work.push(pooled.query('select $1::int as n', [i]))
    else work.push(pooled.db.transaction(async (tx) => await tx.execute(sql`select ${i}::int as n`)))
  }
  work.push(pooled.notify('pir_pooler_test', 'hello'))
  let timer: NodeJS.Timeout | undefined
  const outcome = await Promise.race([
    Promise.all(work).then(() => 'all answered'),
    new Promise((resolve) => { timer = setTimeout(() => resolve('some never answered'), 30_000) })
  ])
  clearTimeout(timer)
  t.equal(outcome, 'all answered')
  const answers = await Promise.all(work.slice(1, 60).filter((_, i) => i % 3 === 0)) as Array<Array<{ n: number }>>
  t.same(answers.map((rows) => rows[0].n), Array.from({ length: 20 }, (_, i) => 3 * i + 1), 'each statement got its own answer')
  t.equal(pooled.usage!.statements + pooled.usage!.transactions, 0, 'nothing left in flight')
})
