// The embedded database (PGlite in DATA_DIR/pglite) as a process opens it: the one that takes the lock
// owns it (src/db/embedded-lock.ts), a server also serves it on a Unix socket
// (src/db/embedded-socket.ts), and a command that finds a server owning it goes through that socket,
// so that what it writes is the server's data at once. Anything else is refused with one line.
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDatabase, fromPostgres, SOCKET_CONNECT_TIMEOUT_S, type Database } from './client.ts'
import { heldMessage, takeEmbeddedLock, type LockHolder } from './embedded-lock.ts'
import { serveEmbedded } from './embedded-socket.ts'
import { migrateDatabase, SOCKET_URL } from './migrate.ts'
import { EmbeddedDatabaseInUse } from '../errors.ts'

export interface EmbeddedOptions {
  dataDir: string
  /** a server serves the database on a socket; a command may go through a server's */
  role: 'server' | 'command'
  /** what this process is, for the line a second one prints: "a server", "npm run promo" */
  name: string
  /** a command that may work through a server's socket (a report worker may not: it would hold the server's one session) */
  throughServer?: boolean
  /** the socket could not be served, or a client of it failed (a server logs it as a warning) */
  warn?: (err: Error, message: string) => void
}

/**
 * DATA_DIR/pglite.sock, unless that path is longer than a Unix socket's name may be (about 104
 * bytes on macOS, 108 on Linux): then a name in the temporary directory derived from DATA_DIR.
 * The lock file records which, and commands read it from there.
 */
export function socketPathFor (dataDir: string): string {
  const path = join(dataDir, 'pglite.sock')
  if (Buffer.byteLength(path) <= 100) return path
  return join(tmpdir(), `pir-pglite-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`)
}

/** the code of the error, or of one it wraps (drizzle wraps the driver's) */
function codeOf (err: unknown): string | undefined {
  for (let e = err as { code?: string, cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code) return e.code
  }
  return undefined
}

/** a command's connection through the server's socket; null when nothing answers there */
async function throughSocket (socket: string, busy: () => string): Promise<Database | null> {
  try {
    await migrateDatabase({ socket })
  } catch (err) {
    const code = codeOf(err)
    if (code === 'ECONNREFUSED' || code === 'ENOENT') return null
    if (code === 'CONNECT_TIMEOUT') throw new EmbeddedDatabaseInUse(busy())
    throw err
  }
  // one connection: the server has one session to lend; unnamed statements leave nothing behind in it
  return fromPostgres(SOCKET_URL, 1, false, socket)
}

/**
 * A folder where a socket cannot be made (some mounted or network filesystems) costs the commands
 * their way through this server, not the server its start: they are refused while it runs.
 */
async function serve (pglite: NonNullable<Database['pglite']>, socket: string, warn: EmbeddedOptions['warn']) {
  try {
    return await serveEmbedded(pglite, socket, { onError: (err) => warn?.(err, 'embedded database socket: a client failed') })
  } catch (err) {
    warn?.(err as Error, `embedded database not served on ${socket}: commands are refused while this server runs`)
    return null
  }
}

export async function openEmbedded (opts: EmbeddedOptions): Promise<Database> {
  mkdirSync(opts.dataDir, { recursive: true })
  const socket = socketPathFor(opts.dataDir)
  const taken = takeEmbeddedLock(opts.dataDir, opts.role === 'server' ? { role: 'server', name: opts.name, socket } : { role: 'command', name: opts.name })
  if ('heldBy' in taken) {
    const h: LockHolder = taken.heldBy
    if (opts.role === 'command' && opts.throughServer !== false && h.role === 'server' && h.socket && h.host === hostname()) {
      const busy = () => heldMessage(opts.dataDir, h, taken.path,
        `it did not let this command in within ${SOCKET_CONNECT_TIMEOUT_S} s (busy with a long transaction, such as the demo import at a first start): try again`)
      const database = await throughSocket(h.socket, busy)
      if (database) return database
      throw new EmbeddedDatabaseInUse(heldMessage(opts.dataDir, h, taken.path, `it does not answer on ${h.socket} (still starting?): try again, or stop it first`))
    }
    throw new EmbeddedDatabaseInUse(heldMessage(opts.dataDir, h, taken.path))
  }
  const { lock } = taken
  let database: Database | undefined
  try {
    database = await createDatabase({ dataDir: opts.dataDir })
    const pglite = database.pglite!
    // served before the migrations: a command started meanwhile waits for them instead of being refused
    const served = opts.role === 'server' ? await serve(pglite, socket, opts.warn) : null
    const close = database.close
    database.close = async () => {
      try {
        await served?.close()
        await close()
      } finally {
        lock.release()
      }
    }
    await migrateDatabase({ pglite })
    return database
  } catch (err) {
    if (database) await database.close()
    else lock.release()
    throw err
  }
}
