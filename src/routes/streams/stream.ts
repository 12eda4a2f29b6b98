// The two ways a stream's bytes reach its client (the hub's SseOutput, src/services/streams/hub.ts).
//
// HTTP/1.1 on a socket (TCP or TLS): the socket is taken from Node's ServerResponse (detachSocket,
// what Node itself does once a response is finished) and the head and the chunks are written on it
// directly. Nothing of the request's handling stays reachable then: not the ServerResponse with its
// header map and its serialized head, nor Fastify's request, reply, session and child logger, which
// Fastify's response listeners would hold until the response finished: per open stream that is more
// than twice the heap a raw node:http server needs, and taken over it is less than the raw server's
// (see docs/benchmarks.md, SSE streams). Node still parses what the client sends on the connection:
// a client that pipelined another request behind its stream (no EventSource does) would find that
// answer inside it.
//
// Anything else (HTTP/2 streams, a request queued behind another on its connection, an injected
// request): the raw response, written as usual.
import { validateHeaderName, validateHeaderValue, ServerResponse } from 'node:http'
import type { Http2ServerResponse } from 'node:http2'
import { Socket } from 'node:net'
import type { SseOutput } from '../../services/streams/hub.ts'

export type StreamHeaders = Record<string, string | number | readonly string[]>

export interface Stream extends SseOutput {
  /** the response is no longer Fastify's: its onResponse hooks will not run for it */
  detached: boolean
  /** fn once the connection (or the HTTP/2 stream) is gone, whoever ended it */
  onClose: (fn: () => void) => void
}

const CRLF = Buffer.from('\r\n')
const LAST_CHUNK = '0\r\n\r\n'

// A fan-out writes one string to every stream of a report, one after the other: it is framed as an
// HTTP/1.1 chunk once, and the same bytes go to every socket.
let framedText: string | undefined
let framed = Buffer.alloc(0)
function chunkOf (text: string): Buffer {
  if (text !== framedText) {
    const body = Buffer.from(text)
    framed = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, CRLF])
    framedText = text
  }
  return framed
}

// a class, not closures: nothing per stream but this object
class SocketStream implements Stream {
  readonly detached = true
  socket: Socket

  constructor (socket: Socket) {
    this.socket = socket
  }

  write (text: string): void {
    this.socket.write(chunkOf(text))
  }

  end (): void {
    this.socket.end(LAST_CHUNK)
  }

  buffered (): number {
    return this.socket.writableLength
  }

  onClose (fn: () => void): void {
    this.socket.once('close', fn)
  }
}

class ResponseStream implements Stream {
  readonly detached = false
  res: ServerResponse | Http2ServerResponse

  constructor (res: ServerResponse | Http2ServerResponse) {
    this.res = res
  }

  write (text: string): void {
    (this.res as ServerResponse).write(text)
  }

  end (): void {
    this.res.end()
  }

  buffered (): number {
    return this.res.writableLength
  }

  onClose (fn: () => void): void {
    this.res.once('close', fn)
  }
}

/** the status line and headers of a 200, chunked, ending with the connection */
function head (headers: StreamHeaders): string {
  let text = 'HTTP/1.1 200 OK\r\n'
  const all: StreamHeaders = { date: new Date().toUTCString(), ...headers, 'transfer-encoding': 'chunked', connection: 'close' }
  for (const [name, value] of Object.entries(all)) {
    validateHeaderName(name)
    for (const v of Array.isArray(value) ? value : [value]) {
      validateHeaderValue(name, v)
      text += `${name}: ${v}\r\n`
    }
  }
  return `${text}\r\n`
}

/**
 * Send the 200 with these headers and return the stream's output. `headers` are all the answer's
 * headers: on HTTP/1.1 the ones already set on the raw response are not sent unless they are here.
 */
export function openStream (res: ServerResponse | Http2ServerResponse, headers: StreamHeaders): Stream {
  const socket = res.socket
  // (a response queued behind another on its connection has no socket yet)
  if (res instanceof ServerResponse && res.req.httpVersion === '1.1' && socket instanceof Socket) {
    res.detachSocket(socket)
    socket.write(head(headers))
    return new SocketStream(socket)
  }
  // HTTP/1.x: the connection ends with the stream, so a shutdown waits for no idle keep-alive
  // socket (HTTP/2 forbids the header; its streams end on their own)
  const own = res instanceof ServerResponse ? { ...headers, connection: 'close' } : headers
  res.writeHead(200, own as Record<string, string | number | string[]>)
  return new ResponseStream(res)
}
