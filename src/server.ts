// Entry point: config -> buildApp -> listen (HTTPS with HTTP/2 and HTTP/1.1 by ALPN), close-with-grace (src/stop-signals.ts).
import { loadConfig, type Config } from './config.ts'
import { ownerOnlyFiles } from './data-dir.ts'
import { ConfigError, EmbeddedDatabaseInUse } from './errors.ts'
import { loadTls, type TlsMaterial } from './tls.ts'
import { onStop } from './stop-signals.ts'
import type { MetricsListener } from './startup.ts'

// everything this process creates (under DATA_DIR and elsewhere) is owner-only (src/data-dir.ts)
ownerOnlyFiles()
let config: Config
let tls: TlsMaterial | undefined
try {
  config = loadConfig()
  tls = config.tls.enabled ? await loadTls({ ...config.tls, dataDir: config.dataDir }) : undefined
} catch (err) {
  // A wrong setting stops the process with one line naming the variable.
  if (err instanceof ConfigError) {
    console.error(err.message)
    process.exit(1)
  }
  throw err
}
// The service's modules are loaded once the configuration is known to be good: a wrong setting is
// reported at once, not after loading everything.
const { buildApp } = await import('./app.ts')
const { afterListen, beforeListen, choosePort, listenMetrics } = await import('./startup.ts')
const { terminalLogging } = await import('./logger.ts')
const { databaseOpenError } = await import('./db/connection-error.ts')
config = await choosePort(config)
const app = await buildApp(config, {
  fastify: {
    ...(tls ? { http2: true, https: { allowHTTP1: true, key: tls.key, cert: tls.cert } } : {}),
    // a terminal in development: one readable line per request (src/logger.ts)
    ...terminalLogging({ level: config.logLevel, production: config.production, isTTY: process.stdout.isTTY })
  }
}).catch((err: unknown) => {
  // another process owns the embedded database, or the database does not answer: one line saying
  // which, as for a wrong setting, not a driver's stack trace
  const line = err instanceof EmbeddedDatabaseInUse ? err.message : databaseOpenError(err, config.databaseUrl)
  if (line === null) throw err
  console.error(line)
  process.exit(1)
})
if (tls) {
  app.log.info({ certFile: tls.certFile, fingerprint: tls.fingerprint },
    tls.generated ? 'generated a self-signed development certificate' : 'TLS certificate loaded')
}

// the metrics listener (METRICS_PORT) lives and dies with the main one
let metricsListener: MetricsListener | null = null

// SIGTERM is how an orchestrator or a balancer's host stops an instance (docker stop, Kubernetes,
// systemd): readiness answers 503 for SHUTDOWN_READY_DELAY_S while every request is still served,
// so that a balancer polling it stops sending here before the listener closes; a repeated SIGTERM
// changes nothing (src/stop-signals.ts). SIGINT is a person at a terminal (Ctrl-C), and an error
// means the process cannot be trusted to serve: both close at once. The close itself keeps its 10 s
// on top of the delay.
const readyDelayMs = config.shutdownReadyDelayS * 1000
onStop(readyDelayMs + 10_000, app.log, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error')
  else app.log.info({ signal }, 'shutting down')
  if (signal === 'SIGTERM' && readyDelayMs > 0) {
    app.drain()
    app.log.info({ readyDelayS: config.shutdownReadyDelayS }, 'draining: readiness answers 503, requests are still served')
    await new Promise((resolve) => setTimeout(resolve, readyDelayMs))
  }
  await app.close()
  await metricsListener?.close()
})

await beforeListen(app, config)
// A thousand clients connecting at once overflow Node's default accept queue (511): their SYNs are
// dropped and retried seconds later, and requests time out (see docs/benchmarks.md, Load and soak).
// The kernel caps this at net.core.somaxconn.
await app.listen({ host: config.host, port: config.port, backlog: 4096 })
metricsListener = await listenMetrics(app, config)
afterListen(app, config)
