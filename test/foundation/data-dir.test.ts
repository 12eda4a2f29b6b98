// DATA_DIR is owner-only: a server started on the embedded database with the usual umask (022)
// leaves no file or folder under DATA_DIR that another user may read, write or enter, while it runs
// (the socket, the lock) and after it stops: the database with its WAL and catalogs, the generated
// secrets, the outbox. An existing DATA_DIR open to others is reported in one warning line and left
// as it is, what is inside it tightened. A DATA_DIR too long for the socket is refused a socket with
// one line, and no socket is made in a shared folder; a command then says to use a shorter DATA_DIR.
import t from '../tap.ts'
import { createHash } from 'node:crypto'
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signedInOn, startServer } from '../peers/server-process.ts'
import { until } from '../peers/wait.ts'
import { pgliteTemplateDir } from '../db-template.ts'
import { tempDir } from './support.ts'
import { openEmbedded, SOCKET_PATH_MAX } from '../../src/db/embedded.ts'
import { EmbeddedDatabaseInUse } from '../../src/errors.ts'

/** every path under `dir` (and `dir` itself) whose mode gives group or others any permission, with its mode */
function openToOthers (dir: string): string[] {
  const found: string[] = []
  const walk = (path: string) => {
    const stats = lstatSync(path)
    if ((stats.mode & 0o077) !== 0) found.push(`${path.slice(dir.length) || '/'} ${(stats.mode & 0o777).toString(8)}`)
    if (stats.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name))
  }
  walk(dir)
  return found
}

/** how many files and folders there are under `dir` */
function count (dir: string): number {
  return readdirSync(dir, { recursive: true }).length
}

t.test('a start on the embedded database leaves nothing under DATA_DIR open to other users, running and stopped', async (t) => {
  // the child inherits this umask: the usual one, which lets others read what a process makes
  const previous = process.umask(0o022)
  t.teardown(() => { process.umask(previous) })
  const dir = join(tempDir(t, 'pir-modes-'), 'data')
  // the migrated database as PGlite unpacks it (its catalogs, templates and WAL 0666), in a folder of
  // its own; the server makes DATA_DIR's other files: the development secrets, the socket, the outbox
  mkdirSync(dir, { mode: 0o700 })
  cpSync(await pgliteTemplateDir(), join(dir, 'pglite'), { recursive: true })
  t.ok(openToOthers(dir).length > 100, 'the database\'s files as PGlite makes them are open to others')
  const server = await startServer(t, { DATA_DIR: dir, DATABASE_URL: '', JWT_SECRET: '', SESSION_SECRET: '', MFA_ENCRYPTION_KEY: '' })
  await signedInOn(server, 'modes')
  t.ok(existsSync(join(dir, 'secrets.json')), 'the development secrets are there')
  t.ok(await until(() => existsSync(join(dir, 'outbox')) && readdirSync(join(dir, 'outbox')).length > 0), 'a mail is in the outbox')
  t.ok(existsSync(join(dir, 'pglite', 'pg_wal')), 'the database\'s WAL is there')
  t.ok(existsSync(join(dir, 'pglite.sock')), 'the socket is in DATA_DIR')
  t.ok(count(dir) > 500, `${count(dir)} files and folders`)
  t.same(openToOthers(dir), [], 'while it runs: nothing open to others')
  await server.stop()
  t.same(openToOthers(dir), [], 'after it stops: nothing open to others')
})

t.test('an existing DATA_DIR open to others: one warning line at start, left as it is, everything inside made owner-only', async (t) => {
  const dir = join(tempDir(t, 'pir-modes-'), 'data')
  mkdirSync(dir, { mode: 0o755 })
  chmodSync(dir, 0o755)
  // a database unpacked by an earlier version: PGlite's files as it makes them (0666), under a 0755 folder
  cpSync(await pgliteTemplateDir(), join(dir, 'pglite'), { recursive: true })
  chmodSync(join(dir, 'pglite'), 0o755)
  chmodSync(join(dir, 'pglite', 'PG_VERSION'), 0o666)
  t.ok(openToOthers(dir).length > 2, 'open to others before the start')
  const server = await startServer(t, { DATA_DIR: dir, DATABASE_URL: '' })
  const lines = server.output().split('\n').filter((l) => l.includes('is open to other users'))
  t.equal(lines.length, 1, 'one line')
  t.match(JSON.parse(lines[0]), { level: 40, dataDir: dir, mode: '755', msg: `DATA_DIR ${dir} is open to other users (mode 0755): what the service writes in it is owner-only, but the folder is yours to close: chmod 700 ${dir}` })
  t.same(openToOthers(dir), ['/ 755'], 'the folder itself is left as it is; everything in it is owner-only')
  await server.stop()
})

t.test('a DATA_DIR too long for the socket: no socket, one line saying to use a shorter DATA_DIR, nothing in a shared folder', async (t) => {
  const base = tempDir(t, 'pir-long-')
  const dir = join(base, 'd'.repeat(Math.max(1, SOCKET_PATH_MAX + 1 - Buffer.byteLength(join(base, 'pglite.sock')))))
  t.ok(Buffer.byteLength(join(dir, 'pglite.sock')) > SOCKET_PATH_MAX, 'the socket path would be too long')
  mkdirSync(dir)
  cpSync(await pgliteTemplateDir(), join(dir, 'pglite'), { recursive: true })
  const warnings: string[] = []
  const database = await openEmbedded({ dataDir: dir, role: 'server', name: 'a server', warn: (_err, message) => { warnings.push(message) } })
  t.teardown(() => database.close())
  t.same(warnings, [`DATA_DIR ${dir} is too long for the embedded database's socket (${Buffer.byteLength(join(dir, 'pglite.sock'))} bytes with /pglite.sock, ` +
    `at most ${SOCKET_PATH_MAX}): commands (npm run promo, import, migrate) cannot work through this server; use a shorter DATA_DIR`], 'one line')
  t.notOk('socket' in JSON.parse(readFileSync(join(dir, 'pglite.lock'), 'utf8')), 'the lock names no socket')
  t.notOk(existsSync(join(dir, 'pglite.sock')), 'no socket in DATA_DIR')
  // the name the socket once took in the temporary folder, where another user could have bound it first
  const shared = join(tmpdir(), `pir-pglite-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}.sock`)
  t.notOk(existsSync(shared), 'and none in the temporary folder')
  t.equal((await database.query<{ one: number }>('select 1 as one'))[0].one, 1, 'the server has its database')

  const refused = await openEmbedded({ dataDir: dir, role: 'command', name: 'npm run promo' }).then(() => null, (err: unknown) => err)
  t.ok(refused instanceof EmbeddedDatabaseInUse, 'a command is refused')
  t.match((refused as Error).message, /^the embedded database \S+ is in use by a server \(pid \d+\): it serves no socket, as DATA_DIR is too long for one: stop it first, or use a shorter DATA_DIR \(lock file /)
  t.notOk((refused as Error).message.includes('\n'), 'in one line')
})
