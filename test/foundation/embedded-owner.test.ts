// One process owns the embedded database. A server process holds DATA_DIR/pglite.lock and serves the
// database on a Unix socket: `npm run promo` run meanwhile goes through it, and the code works on
// that server at once; a second server and a worker on the same DATA_DIR refuse with one line; the
// lock of a killed process blocks nothing. Then the socket itself, in process: a client's transaction
// and the server's own queries never run inside each other, a client that leaves or goes quiet
// mid-transaction is rolled back, and its NOTIFYs reach the server's listeners.
import t from '../tap.ts'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import { call, signedInOn, startServer } from '../peers/server-process.ts'
import { until } from '../peers/wait.ts'
import { pgliteTemplateDir } from '../db-template.ts'
import { run, tempDir } from './support.ts'
import { serveEmbedded } from '../../src/db/embedded-socket.ts'
import { SOCKET_URL } from '../../src/db/migrate.ts'

/** a DATA_DIR with the migrated embedded database in it, and the environment a command needs for it */
async function dataDir (t: Parameters<typeof tempDir>[0]) {
  const dir = tempDir(t, 'pir-owner-')
  cpSync(await pgliteTemplateDir(), join(dir, 'pglite'), { recursive: true })
  return { dir, env: { DATA_DIR: dir, DATABASE_URL: '', NODE_ENV: 'test', LOG_LEVEL: 'silent' } }
}

/** the pid of a process that has ended */
function deadPid (): number {
  const child = spawnSync(process.execPath, ['-e', ''])
  return child.pid!
}

const ONE_LINE = /^[^\n]+$/

t.test('a server owns the embedded database: promo goes through it, a second server and a worker refuse', async (t) => {
  const { dir, env } = await dataDir(t)
  const server = await startServer(t, { DATA_DIR: dir, DATABASE_URL: '' })
  const lock = JSON.parse(readFileSync(join(dir, 'pglite.lock'), 'utf8'))
  t.match(lock, { pid: server.child.pid, host: hostname(), role: 'server', socket: String }, 'the lock names the server and its socket')

  const created = await run('src/cli/promo.ts', ['create', 'WELCOME5', '--max-uses', '10', '--credits', '5'], env)
  t.equal(created.code, 0, created.stderr)
  t.equal(created.stdout.trim(), 'created WELCOME5: 10 uses, 5 credit(s)')

  // the running server sees the code at once: no restart
  const user = await signedInOn(server, 'owner')
  const before = await call(server, 'GET', '/auth/info', user.auth)
  const redeemed = await call(server, 'POST', '/billing/promocode', user.auth, { promocode: 'WELCOME5' })
  t.same(redeemed.json, { status: 'success' }, 'the code made by the command is redeemed on the server')
  const after = await call(server, 'GET', '/auth/info', user.auth)
  t.equal(after.json.reportCredits, before.json.reportCredits + 5, 'with its credits')

  const listed = await run('src/cli/promo.ts', ['list'], env)
  t.equal(listed.code, 0, listed.stderr)
  t.match(listed.stdout, /^WELCOME5\t1\/10 used\t5 credit\(s\)\tno expiry$/m, 'the command reads what the server wrote')
  const migrated = await run('src/cli/migrate.ts', [], env)
  t.equal(migrated.code, 0, migrated.stderr)

  const second = await run('src/server.ts', [], { ...env, PORT: '0', TLS: 'off', ALLOW_HTTP: 'true', LOG_LEVEL: 'info' })
  t.equal(second.code, 1, 'a second server on the same DATA_DIR exits 1')
  t.match(second.stderr.trim(), ONE_LINE, 'with one line')
  t.match(second.stderr.trim(), new RegExp(`^the embedded database ${join(dir, 'pglite')} is in use by a server \\(pid ${server.child.pid}\\): stop it first, or set DATABASE_URL`))
  t.notMatch(second.stdout, /listening/, 'it never listened')

  const worker = await run('src/cli/worker.ts', [], env)
  t.equal(worker.code, 1, 'a worker does not go through the server')
  t.match(worker.stderr.trim(), ONE_LINE)
  t.match(worker.stderr, /is in use by a server \(pid \d+\)/)

  // the server still answers, and still owns the directory
  t.equal((await call(server, 'GET', '/health')).status, 200)
  t.equal(JSON.parse(readFileSync(join(dir, 'pglite.lock'), 'utf8')).pid, server.child.pid)
  await server.stop()
  t.notOk(existsSync(join(dir, 'pglite.lock')), 'a server that stops leaves no lock')
})

t.test('the lock of a killed server blocks nothing', async (t) => {
  const { dir, env } = await dataDir(t)
  const server = await startServer(t, { DATA_DIR: dir, DATABASE_URL: '' })
  server.child.kill('SIGKILL')
  await server.exited
  t.ok(existsSync(join(dir, 'pglite.lock')), 'the killed server left its lock')

  const created = await run('src/cli/promo.ts', ['create', 'AFTER-CRASH', '--max-uses', '1'], env)
  t.equal(created.code, 0, created.stderr)
  t.equal(created.stdout.trim(), 'created AFTER-CRASH: 1 uses, 1 credit(s)', 'the command opened the database itself')
  t.notOk(existsSync(join(dir, 'pglite.lock')), 'and released it')
})

t.test('a command holding the lock: another refuses with one line; a dead one\'s lock is taken over', async (t) => {
  const { dir, env } = await dataDir(t)
  const path = join(dir, 'pglite.lock')
  // this test process stands for a live import: the lock format is the one src/db/embedded-lock.ts writes
  writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), role: 'command', name: 'npm run import' }))
  const refused = await run('src/cli/promo.ts', ['list'], env)
  t.equal(refused.code, 1)
  t.equal(refused.stderr.trim(),
    `the embedded database ${join(dir, 'pglite')} is in use by npm run import (pid ${process.pid}): stop it first or wait for it to finish, ` +
    `or set DATABASE_URL to a PostgreSQL database (lock file ${path}, to delete only if that process is not running)`)
  t.equal(readFileSync(path, 'utf8').includes(`"pid":${process.pid}`), true, 'the holder keeps its lock')

  // a live server whose socket does not answer (still starting): refused, not hung
  const nowhere = join(dir, 'nothing-here.sock')
  writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), role: 'server', name: 'a server', socket: nowhere }))
  const silent = await run('src/cli/promo.ts', ['list'], env)
  t.equal(silent.code, 1)
  t.match(silent.stderr.trim(), ONE_LINE)
  t.match(silent.stderr, `is in use by a server (pid ${process.pid}): it does not answer on ${nowhere} (still starting?): try again, or stop it first`)

  writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), role: 'command', name: 'npm run import' }))
  const listed = await run('src/cli/promo.ts', ['list'], env)
  t.equal(listed.code, 0, listed.stderr)
  t.equal(listed.stdout.trim(), 'no promocodes')
  t.notOk(existsSync(path), 'the dead command\'s lock was taken over, then released')
})

t.test('the socket: a client and the server\'s own queries never share a transaction', async (t) => {
  const pg = new PGlite()
  t.teardown(() => pg.close())
  await pg.exec('create table t (x int)')
  const heard: string[] = []
  await pg.listen('changes', (payload) => heard.push(payload))
  const socket = join(tempDir(t, 'pir-sock-'), 'pg.sock')
  const errors: Error[] = []
  const served = await serveEmbedded(pg, socket, { idleMs: 300, onError: (err) => errors.push(err) })
  t.teardown(() => served.close())
  const client = () => postgres(SOCKET_URL, { path: socket, max: 1, prepare: false, onnotice: () => {} })
  const sql = client()
  t.teardown(() => sql.end({ timeout: 1 }))
  const count = async (where: string) => (await pg.query<{ n: number }>(`select count(*)::int as n from t where ${where}`)).rows[0].n

  t.same(await sql`select 1 + ${2}::int as n`, [{ n: 3 }], 'a query through the socket')
  t.equal(statSync(socket).mode & 0o777, 0o600, 'only this user may connect')

  // the client's transaction rolls back while the server writes: the server's rows stay
  let clientInTx: () => void
  const inTx = new Promise<void>((resolve) => { clientInTx = resolve })
  const serverWrites = (async () => {
    await inTx
    for (let i = 0; i < 10; i++) await pg.query('insert into t values ($1)', [100 + i])
  })()
  await t.rejects(sql.begin(async (tx) => {
    await tx`insert into t values (1)`
    clientInTx()
    // give the server's inserts every chance to run inside this transaction, were they able to
    await new Promise((resolve) => setImmediate(resolve))
    await tx`insert into t values (2)`
    throw new Error('client rolls back')
  }), /client rolls back/)
  await serverWrites
  t.equal(await count('x >= 100'), 10, 'every row the server wrote meanwhile is kept')
  t.equal(await count('x < 100'), 0, 'none of the client\'s')

  // the server's transaction rolls back while the client writes: the client's rows stay
  const clientWrites: Array<Promise<unknown>> = []
  await t.rejects(pg.transaction(async (tx) => {
    await tx.query('insert into t values (3)')
    for (let i = 0; i < 5; i++) clientWrites.push(sql`insert into t values (${200 + i})`)
    await new Promise((resolve) => setImmediate(resolve))
    await tx.query('insert into t values (4)')
    throw new Error('server rolls back')
  }), /server rolls back/)
  await Promise.all(clientWrites)
  t.equal(await count('x >= 200'), 5, 'every row the client wrote meanwhile is kept')
  t.equal(await count('x in (3, 4)'), 0)

  // a NOTIFY committed by a client reaches the server's listener
  await sql`select pg_notify('changes', 'from a command')`
  await until(() => heard.includes('from a command'), { what: 'the NOTIFY of the command' })
  t.pass('the server heard the command\'s NOTIFY')

  // a client that goes quiet inside a transaction is cut off and rolled back; the server goes on
  const quiet = client()
  const reserved = await quiet.reserve()
  await reserved`begin`
  await reserved`insert into t values (300)`
  const afterQuiet = await pg.query<{ n: number }>('select count(*)::int as n from t where x = 300')
  t.equal(afterQuiet.rows[0].n, 0, 'the server\'s query ran after the quiet client was cut off, without its row')
  t.notOk(pg.isInTransaction(), 'its transaction was rolled back')
  reserved.release()
  await quiet.end({ timeout: 1 }).catch(() => {})

  // a client that leaves inside a transaction: rolled back at once
  const leaving = client()
  const conn = await leaving.reserve()
  await conn`begin`
  await conn`insert into t values (400)`
  conn.release()
  await leaving.end({ timeout: 0 })
  t.equal((await pg.query<{ n: number }>('select count(*)::int as n from t where x = 400')).rows[0].n, 0, 'a client gone mid-transaction leaves nothing')
  t.same(await sql`select count(*)::int as n from t`, [{ n: 15 }], 'and the socket still serves')
})
