// What a server process does around its listener: report a DATA_DIR open to other users (one
// warning line, src/data-dir.ts), in development import the demo dataset into an empty database,
// and, with METRICS_PORT, serve the Prometheus metrics on a listener of their own, bound to
// METRICS_HOST (loopback by default: the series describe the service to whoever can read them).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { Config } from './config.ts'
import { onLoopback } from './config/production.ts'
import { portOf } from './config/public-url.ts'
import { widerDataDirLine, widerThanOwner } from './data-dir.ts'
import { importDemoDataIfEmpty } from './services/demo/import.ts'
import type { Metrics } from './services/operability/metrics.ts'

/**
 * The demo import runs in one transaction. Embedded PGlite has a single connection, which that
 * transaction holds: a listener opened before it ends would accept requests and leave every one
 * waiting, so there it runs before listening. On PostgreSQL it runs in the background after the
 * listener is up, and profiles appear when it is done.
 */
export async function beforeListen (app: FastifyInstance, config: Config): Promise<void> {
  const mode = widerThanOwner(config.dataDir)
  if (mode !== null) app.log.warn({ dataDir: config.dataDir, mode: mode.toString(8) }, widerDataDirLine(config.dataDir, mode))
  if (config.demoData && app.database.pglite) await importDemoData(app)
}

export function afterListen (app: FastifyInstance, config: Config): void {
  announce(app, config)
  if (config.demoData && !app.database.pglite) void importDemoData(app)
}

/**
 * Where a person starts: the dashboard and the API docs, and the development files they will look
 * for (the mail outbox, the generated secrets). The address is PUBLIC_URL's origin, the one that
 * works: sign-in cookies, the Origin check, mailed links and passkeys are all bound to it. When
 * PUBLIC_URL names this machine on another port than the listener's, it cannot be reached here as
 * configured: one warning says so and what to set (docs/decisions/running-it.md, Deployment).
 */
function announce (app: FastifyInstance, config: Config): void {
  const publicUrl = new URL(config.publicUrl)
  const port = (app.server.address() as AddressInfo).port
  const origin = publicUrl.origin
  app.log.info({ dashboard: `${origin}/`, docs: `${origin}/api/v1/docs` }, `dashboard ${origin}/ and API docs ${origin}/api/v1/docs`)
  if (onLoopback(config.publicUrl) && portOf(publicUrl) !== port && config.trustProxy.length === 0) {
    const here = `${publicUrl.protocol}//${publicUrl.hostname}:${port}`
    app.log.warn({ publicUrl: origin, port },
      `PUBLIC_URL ${origin} is not this server (it listens on port ${port}): sign-in, mailed links and passkeys work only at PUBLIC_URL; unset PUBLIC_URL or set it to ${here}`)
  }
  if (!config.mail.smtpUrl) app.log.info({ outbox: config.mail.outboxDir }, `mail is written to ${config.mail.outboxDir} (no SMTP_URL)`)
  if (config.secretsFile) app.log.info({ secretsFile: config.secretsFile }, `development JWT and session secrets in ${config.secretsFile}`)
  const { argon2Concurrency, threadPoolSize } = config
  app.log.info({ argon2Concurrency, threadPoolSize }, `passwords: ${argon2Concurrency} argon2 hashes at a time in a thread pool of ${threadPoolSize} (UV_THREADPOOL_SIZE)`)
}

/**
 * PORT=0 asks the system for any free port. When PUBLIC_URL follows the listener it must name that
 * port before the app is built (the Origin check, mailed links and passkeys read it then): the port
 * is taken here, released, and listened on again at once.
 */
export async function choosePort (config: Config): Promise<Config> {
  if (config.port !== 0 || !config.publicUrlFollowsListener) return config
  const probe = createServer()
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject)
    probe.listen(0, config.host, resolve)
  })
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  const publicUrl = new URL(config.publicUrl)
  publicUrl.port = String(port)
  return { ...config, port, publicUrl: publicUrl.origin }
}

async function importDemoData (app: FastifyInstance): Promise<void> {
  try {
    await importDemoDataIfEmpty(app.database, app.log)
  } catch (err) {
    app.log.error({ err }, 'demo data import failed')
  }
}

export interface MetricsListener {
  /** the address it is bound to (METRICS_HOST) */
  address: string
  /** the port it listens on (METRICS_PORT=0 picks a free one) */
  port: number
  close: () => Promise<void>
}

interface Log { info: (obj: object, msg: string) => void, error: (obj: object, msg: string) => void }

const json = (code: number, message: string) => JSON.stringify({ code, message })

/**
 * GET /metrics in the Prometheus text format on host:port, plain HTTP. Not the public listener: the
 * port is meant for the scraper's network only (no TLS, no authentication, no rate limit), so the
 * public API never shows its internals. Anything but GET|HEAD /metrics is 404.
 */
export async function serveMetrics (metrics: Metrics, opts: { host: string, port: number, log: Log }): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(json(404, 'not found'))
      return
    }
    metrics.scrape().then((text) => {
      res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' })
      res.end(req.method === 'HEAD' ? undefined : text)
    }, (err: Error) => {
      opts.log.error({ err: { message: err.message } }, 'metrics scrape failed')
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(json(500, 'internal error'))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port, address } = server.address() as AddressInfo
  opts.log.info({ host: opts.host, port }, 'metrics listening')
  return {
    address,
    port,
    close: () => new Promise<void>((resolve) => {
      // a scraper keeps its connection alive between scrapes: end it rather than wait for it
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
}

/** the app's metrics listener on METRICS_HOST:METRICS_PORT; null when METRICS_PORT is unset */
export async function listenMetrics (app: FastifyInstance, config: Config): Promise<MetricsListener | null> {
  if (!app.metrics || config.metricsPort === null) return null
  return await serveMetrics(app.metrics, { host: config.metricsHost, port: config.metricsPort, log: app.log })
}
