// A TCP proxy to the machine's Redis that a test owns, cuts and restores: what a broken connection
// to Redis, or a Redis restart, looks like to the service, without touching the machine's Redis.
import { createServer, connect, type AddressInfo, type Socket } from 'node:net'
import type { Tap } from '../helper.ts'

export const REDIS_PORT = 6379

export async function redisProxy (t: Tap) {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(REDIS_PORT, '127.0.0.1')
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {})
    }
    client.pipe(upstream).pipe(client)
  })
  const listen = (port: number) => new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
  const port = await listen(0)
  /** every connection through the proxy dropped, and new ones refused until restore() */
  const cut = () => new Promise<void>((resolve) => {
    server.close(() => resolve())
    for (const s of sockets) s.destroy()
  })
  t.teardown(() => cut())
  return { url: `redis://127.0.0.1:${port}`, cut, restore: () => listen(port) }
}
