// A TCP proxy the chaos run owns, between the service and a server the machine shares (PostgreSQL,
// Redis): cut() resets every connection through it and stops listening, so a new connection is
// refused as if the server were down; restore() listens again on the same port. The machine's own
// server is never touched.
import { once } from 'node:events'
import { createConnection, createServer, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  /** the port the service connects to */
  port: number
  /** connections through the proxy now */
  open: () => number
  cut: () => Promise<void>
  restore: () => Promise<void>
  close: () => Promise<void>
}

export async function startProxy (target: { host: string, port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>()
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.host, port: target.port })
    const pair: [Socket, Socket] = [client, upstream]
    pairs.add(pair)
    const end = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  let listening = true
  return {
    port,
    open: () => pairs.size,
    async cut () {
      if (listening) {
        listening = false
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        // a reset, as a server that died would leave its clients with
        for (const [client, upstream] of pairs) { client.resetAndDestroy(); upstream.destroy() }
        pairs.clear()
        await closed
      }
    },
    async restore () {
      if (!listening) {
        server.listen(port, '127.0.0.1')
        await once(server, 'listening')
        listening = true
      }
    },
    async close () {
      for (const [client, upstream] of pairs) { client.destroy(); upstream.destroy() }
      pairs.clear()
      if (listening) await new Promise<void>((resolve) => server.close(() => resolve()))
      listening = false
    }
  }
}
