// The embedded database served on a Unix socket, so that a command run while the server holds it
// (npm run promo, import, db:migrate) works through the server as through a PostgreSQL URL, and its
// writes are seen by the server at once. PGlite is one PostgreSQL backend: a client's wire-protocol
// messages are handed to it as they come (execProtocolRawStream) and its answers are written back.
//
// The backend has one session, shared with the server's own queries, so a client holds it from its
// first message until the backend is idle again (ReadyForQuery 'I': after a statement outside a
// transaction, or after COMMIT/ROLLBACK). It is held through PGlite's transaction mutex, the one its
// own query() and transaction() take: the server's queries wait for a command's transaction to end,
// and a command waits for the server's; neither runs inside the other's transaction, nor between the
// Parse and the Sync of the other's extended query. A client that goes quiet while holding the
// session is cut off after `idleMs` and its transaction rolled back, so the server never waits on it
// for long. NOTIFYs committed by a client reach the client (the raw stream is not parsed by PGlite);
// they are sent again in-process so that the server's listeners see a command's writes as their own.
//
// @electric-sql/pglite-socket does the same framing, but takes PGlite's query mutex per message,
// which lets the server's queries run inside a client's transaction, and it pins one exact PGlite
// version (docs/decisions/running-it.md, One process owns the embedded database).
import { createServer, type Socket } from 'node:net'
import { chmodSync, unlinkSync } from 'node:fs'
import type { PGlite } from '@electric-sql/pglite'

/** the start of a startup-phase request that is not a startup message (protocol 3.0's special codes) */
const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102
/** Sync and a simple-query ROLLBACK: what ends a gone client's extended query and transaction */
const SYNC = Buffer.from([0x53, 0, 0, 0, 4])
const ROLLBACK = simpleQuery('rollback')

function simpleQuery (text: string): Buffer {
  const body = Buffer.from(text + '\0')
  const msg = Buffer.alloc(5 + body.length)
  msg.write('Q', 0)
  msg.writeInt32BE(4 + body.length, 1)
  body.copy(msg, 5)
  return msg
}

export interface EmbeddedSocket {
  path: string
  /** ends every client (rolling back what it left open) and stops listening; PGlite stays open */
  close: () => Promise<void>
}

export interface ServeOptions {
  /** a client holding the session with no message for this long is cut off (ms) */
  idleMs?: number
  onError?: (err: Error) => void
}

/** Reads backend messages from the answers: the last ReadyForQuery status and the notifications. */
class AnswerReader {
  status = ''
  notifications: Array<[string, string]> = []
  private rest: Buffer = Buffer.alloc(0)

  push (chunk: Uint8Array): void {
    let buf = this.rest.length ? Buffer.concat([this.rest, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    while (buf.length >= 5) {
      const len = buf.readInt32BE(1)
      if (buf.length < 1 + len) break
      const type = buf[0]
      if (type === 0x5a) this.status = String.fromCharCode(buf[5]) // 'Z' ReadyForQuery
      else if (type === 0x41) { // 'A' NotificationResponse: pid, channel\0, payload\0
        const end = 1 + len
        const c = buf.indexOf(0, 9)
        const p = buf.indexOf(0, c + 1)
        if (c > 0 && p > c && p < end) this.notifications.push([buf.toString('utf8', 9, c), buf.toString('utf8', c + 1, p)])
      }
      buf = buf.subarray(1 + len)
    }
    this.rest = Buffer.from(buf)
  }
}

export async function serveEmbedded (pg: PGlite, path: string, opts: ServeOptions = {}): Promise<EmbeddedSocket> {
  const idleMs = opts.idleMs ?? 30_000
  const ended = new Set<Promise<void>>()
  const clients = new Set<Socket>()

  /** holds the backend's session for one client: resolves with the function that gives it back */
  const takeSession = () => new Promise<() => void>((resolve) => {
    void pg._runExclusiveTransaction(() => new Promise<void>((release) => resolve(release)))
  })

  function client (socket: Socket): void {
    clients.add(socket)
    let inbox: Buffer = Buffer.alloc(0)
    let started = false
    let release: (() => void) | null = null
    let idle: NodeJS.Timeout | undefined
    // messages run one after another, in the order they came
    let chain: Promise<void> = Promise.resolve()

    const run = async (message: Buffer) => {
      if (socket.destroyed) return
      release ??= await takeSession()
      clearTimeout(idle)
      const reader = new AnswerReader()
      await pg._runExclusiveQuery(() => pg.execProtocolRawStream(message, {
        onRawData: (data) => {
          reader.push(data)
          if (!socket.destroyed) socket.write(Buffer.from(data))
        }
      }))
      if (reader.status === 'I') {
        release()
        release = null
        for (const [channel, payload] of reader.notifications) void pg.query('select pg_notify($1, $2)', [channel, payload]).catch(() => {})
      } else {
        idle = setTimeout(() => socket.destroy(), idleMs)
      }
    }

    const enqueue = (message: Buffer) => {
      chain = chain.then(() => run(message)).catch((err: Error) => {
        opts.onError?.(err)
        socket.destroy()
      })
    }

    socket.on('data', (data: Buffer) => {
      inbox = inbox.length ? Buffer.concat([inbox, data]) : data
      for (;;) {
        if (!started) {
          if (inbox.length < 8) return
          const len = inbox.readInt32BE(0)
          if (inbox.length < len) return
          const code = inbox.readInt32BE(4)
          const message = inbox.subarray(0, len)
          inbox = inbox.subarray(len)
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            socket.write('N')
            continue
          }
          if (code === CANCEL_REQUEST) {
            socket.destroy()
            return
          }
          started = true
          enqueue(Buffer.from(message))
          continue
        }
        if (inbox.length < 5) return
        const len = inbox.readInt32BE(1)
        if (inbox.length < 1 + len) return
        const message = inbox.subarray(0, 1 + len)
        inbox = inbox.subarray(1 + len)
        if (message[0] === 0x58) { // 'X' Terminate: the session is not ended, only this client
          socket.end()
          return
        }
        enqueue(Buffer.from(message))
      }
    })
    socket.on('error', () => socket.destroy())
    socket.once('close', () => {
      clients.delete(socket)
      clearTimeout(idle)
      // what the client left: an extended query without its Sync, an open transaction
      const done = chain.then(async () => {
        if (!release) return
        try {
          await pg._runExclusiveQuery(async () => {
            await pg.execProtocolRawStream(SYNC, { onRawData: () => {} })
            if (pg.isInTransaction()) await pg.execProtocolRawStream(ROLLBACK, { onRawData: () => {} })
          })
        } catch (err) {
          opts.onError?.(err as Error)
        } finally {
          release()
          release = null
        }
      })
      ended.add(done)
      void done.finally(() => ended.delete(done))
    })
  }

  // the lock says this process owns the data directory: a socket file left there is a dead server's
  try { unlinkSync(path) } catch { /* none */ }
  const server = createServer(client)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(path, () => {
      server.off('error', reject)
      resolve()
    })
  })
  // connecting needs write permission on the socket file: this user's commands only, whatever the umask
  chmodSync(path, 0o600)
  server.on('error', (err) => opts.onError?.(err))

  return {
    path,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const socket of clients) socket.destroy()
      await closed
      await Promise.all([...ended])
    }
  }
}
