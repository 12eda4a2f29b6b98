// The embedded database (PGlite in DATA_DIR/pglite) as a process opens it: the one that takes the lock
// owns it (src/db/embedded-lock.ts), a server also serves it on a Unix socket
// (src/db/embedded-socket.ts), and a command that finds a server owning it goes through that socket,
// so that what it writes is the server's data at once. Anything else is refused with one line.
import { hostname } from 'node:os'
import { join } from 'node:path'
import { makeOwnerOnlyDir, ownerOnlyFiles, tightenTree } from '../data-dir.ts'
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

/** the longest socket path served: a Unix socket's name is at most 104 bytes on macOS, 108 on Linux */
export const SOCKET_PATH_MAX = 100

/**
 * DATA_DIR/pglite.sock, or null when that path is longer than a socket's name may be. Never a name
 * in a shared folder such as /tmp: another local user could bind it first and answer the commands
 * (docs/security.md, Findings). The lock file records the path, and commands read it from there.
 */
export function socketPathFor (dataDir: string): string | null {
  const path = join(dataDir, 'pglite.sock')
  return Buffer.byteLength(path) <= SOCKET_PATH_MAX ? path : null
}

/** the one line for a DATA_DIR too long for the socket: what it costs, and what to do */
export function socketTooLongLine (dataDir: string): string {
  return `DATA_DIR ${dataDir} is too long for the embedded database's socket ` +
    `(${Buffer.byteLength(join(dataDir, 'pglite.sock'))} bytes with /pglite.sock, at most ${SOCKET_PATH_MAX}): ` +
    'commands (npm run promo, import, migrate) cannot work through this server; use a shorter DATA_DIR'
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
  // what this process writes from here (the database's new files, the lock) is owner-only
  ownerOnlyFiles()
  makeOwnerOnlyDir(opts.dataDir)
  const socket = socketPathFor(opts.dataDir)
  const taken = takeEmbeddedLock(opts.dataDir, opts.role === 'server' ? { role: 'server', name: opts.name, ...(socket === null ? {} : { socket }) } : { role: 'command', name: opts.name })
  if ('heldBy' in taken) {
    const h: LockHolder = taken.heldBy
    if (opts.role === 'command' && opts.throughServer !== false && h.role === 'server' && h.socket && h.host === hostname()) {
      const busy = () => heldMessage(opts.dataDir, h, taken.path,
        `it did not let this command in within ${SOCKET_CONNECT_TIMEOUT_S} s (busy with a long transaction, such as the demo import at a first start): try again`)
      const database = await throughSocket(h.socket, busy)
      if (database) return database
      throw new EmbeddedDatabaseInUse(heldMessage(opts.dataDir, h, taken.path, `it does not answer on ${h.socket} (still starting?): try again, or stop it first`))
    }
    if (opts.role === 'command' && opts.throughServer !== false && h.role === 'server' && !h.socket && socketPathFor(opts.dataDir) === null) {
      throw new EmbeddedDatabaseInUse(heldMessage(opts.dataDir, h, taken.path, 'it serves no socket, as DATA_DIR is too long for one: stop it first, or use a shorter DATA_DIR'))
    }
    throw new EmbeddedDatabaseInUse(heldMessage(opts.dataDir, h, taken.path))
  }
  const { lock } = taken
  let database: Database | undefined
  try {
    database = await createDatabase({ dataDir: opts.dataDir })
    // PGlite unpacks a new database's files world-readable, and older versions of this service left
    // files so: everything under DATA_DIR is made owner-only before anything is written to it
    tightenTree(opts.dataDir)
    const pglite = database.pglite!
    if (opts.role === 'server' && socket === null) opts.warn?.(new Error(socketTooLongLine(opts.dataDir)), socketTooLongLine(opts.dataDir))
    // served before the migrations: a command started meanwhile waits for them instead of being refused
    const served = opts.role === 'server' && socket !== null ? await serve(pglite, socket, opts.warn) : null
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
