// A PostgreSQL connection lost in the middle of a transaction (pg_terminate_backend, a restart, a
// proxy that cuts it) while the transaction's code goes on. postgres.js 3.4.9 ends the transaction
// with CONNECTION_CLOSED at once, but the code inside it still holds the transaction's client:
// unpatched, its next statement either ran on the connection the pool had opened again in its
// place, outside any transaction, and committed on its own, or, the connection not yet open again,
// threw from a timer and ended the process. patches/ refuses such a statement with
// CONNECTION_CLOSED (docs/operations.md, Dependencies patched).
import { setTimeout as sleep } from 'node:timers/promises'
import { sql, type SQL } from 'drizzle-orm'
import postgres from 'postgres'
import t from 'tap'
import { createDatabase } from '../../src/db/client.ts'
import { freshDatabase, onPostgres, type Tap } from '../helper.ts'
import { databaseUrl } from '../streams/databases.ts'

const skip = onPostgres ? false : 'postgres.js, the PostgreSQL driver, runs in the PostgreSQL run of the suite (TEST_DATABASE_URL set)'

/** the error code of a rejected statement, through Drizzle's wrapping; 'answered' when it was not */
const outcome = async (statement: Promise<unknown>): Promise<string> => await statement.then(() => 'answered', (err: Error & { cause?: { code?: string }, code?: string }) => err.cause?.code ?? err.code ?? err.message)

/**
 * A fresh database, a client of the service's on it with one connection (a statement after a loss
 * opens that same connection again), and another client that ends a backend
 */
async function onOneConnection (t: Tap) {
  const fresh = await freshDatabase(t)
  const url = databaseUrl(fresh)
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(() => admin.end())
  const database = await createDatabase({ url, max: 1 })
  t.teardown(() => database.close())
  const terminate = async (pid: number) => { await admin`select pg_terminate_backend(${pid})` }
  return { fresh, url, database, terminate }
}

/** the backend a transaction runs on */
async function backendOf (tx: { execute: (query: SQL) => Promise<unknown> }): Promise<number> {
  return ((await tx.execute(sql`select pg_backend_pid() as pid`)) as Array<{ pid: number }>)[0].pid
}

/** errors thrown outside any statement while the test runs (tap's own handler then ends the file) */
function countUncaught (t: Tap): Error[] {
  const uncaught: Error[] = []
  const onUncaught = (err: Error) => { uncaught.push(err) }
  process.prependListener('uncaughtException', onUncaught)
  t.teardown(() => { process.removeListener('uncaughtException', onUncaught) })
  return uncaught
}

t.test('a transaction whose connection is lost while a statement runs: it fails, the process lives, the next statement gets its own answer', { skip }, async (t) => {
  const { database, terminate } = await onOneConnection(t)
  const uncaught = countUncaught(t)

  let pid = 0
  const ended = outcome(database.db.transaction(async (tx) => {
    pid = await backendOf(tx)
    await tx.execute(sql`select pg_sleep(5)`)
  }))
  while (!pid) await sleep(10)
  await sleep(200)
  await terminate(pid)
  // unpatched, postgres.js's own ROLLBACK after the failed statement was written to the closed
  // connection, from a timer: an uncaught TypeError
  t.equal(await ended, 'CONNECTION_CLOSED', 'the transaction ends with its connection')
  await sleep(300)
  t.same(uncaught.map((e) => e.message), [], 'nothing thrown outside a statement')
  // unpatched, the server's FATAL for the statement that was running outlived the connection and
  // was taken for the first answer on the connection opened again
  t.same(await database.query('select 3 as n'), [{ n: 3 }], 'the statement after it gets its own answer')
})

t.test('a transaction whose connection is lost: its late statements are refused, nothing commits, the process lives', { skip }, async (t) => {
  const { fresh, database, terminate } = await onOneConnection(t)
  await fresh.exec('create table late_writes (n int)')

  let late: Promise<string> | undefined
  let lost!: () => void
  const connectionLost = new Promise<void>((resolve) => { lost = resolve })
  const transaction = database.db.transaction(async (tx) => {
    const pid = await backendOf(tx)
    await tx.execute(sql`insert into late_writes values (1)`)
    await terminate(pid)
    lost()
    // the transaction's code goes on after its connection is gone, and after the pool opened it again
    await sleep(300)
    late = outcome(tx.execute(sql`insert into late_writes values (2)`))
    await late
  })
  const ended = outcome(transaction)
  await connectionLost
  await sleep(100)
  t.same(await database.query('select 3 as n'), [{ n: 3 }], 'the pool answers on the connection it opened again')
  t.equal(await ended, 'CONNECTION_CLOSED', 'the transaction ends with its connection')
  await sleep(300)
  t.equal(await late, 'CONNECTION_CLOSED', 'the statement it sent after the loss is refused')
  t.same(await database.query('select n from late_writes'), [], 'nothing of the transaction is written: not its first row, not the late one on its own')
  t.same(await database.query('select 4 as n'), [{ n: 4 }], 'and the pool goes on answering')
})

t.test('a late statement before the pool opens the connection again: refused, no uncaught error', { skip }, async (t) => {
  const { database, terminate } = await onOneConnection(t)
  const uncaught = countUncaught(t)

  let late: Promise<string> | undefined
  const ended = outcome(database.db.transaction(async (tx) => {
    await terminate(await backendOf(tx))
    await sleep(300)
    late = outcome(tx.execute(sql`select 2`))
    await late
  }))
  t.equal(await ended, 'CONNECTION_CLOSED', 'the transaction ends with its connection')
  await sleep(300)
  t.equal(await late, 'CONNECTION_CLOSED', 'its late statement is refused')
  await sleep(100)
  t.same(uncaught.map((e) => e.message), [], 'nothing thrown outside a statement')
  t.same(await database.query('select 3 as n'), [{ n: 3 }], 'the pool opens the connection again for the next statement')
})

t.test('a statement on a reserved connection that was lost is refused, not left waiting', { skip }, async (t) => {
  const { url, terminate } = await onOneConnection(t)
  const client = postgres(url, { max: 1, onnotice: () => {} })
  t.teardown(() => client.end({ timeout: 1 }))
  const reserved = await client.reserve()
  const [{ pid }] = await reserved<Array<{ pid: number }>>`select pg_backend_pid() as pid`
  await terminate(pid)
  await sleep(300)
  // unpatched, the write waits on a socket that is gone: the statement never settles
  const settled = await Promise.race([outcome(reserved`select 2`), sleep(5000).then(() => 'still waiting after 5 s')])
  t.equal(settled, 'CONNECTION_CLOSED')
})
