// Entry point: config -> buildApp -> listen (HTTPS with HTTP/2 and HTTP/1.1 by ALPN), close-with-grace.
import closeWithGrace from 'close-with-grace'
import { loadConfig, type Config } from './config.ts'
import { ConfigError, EmbeddedDatabaseInUse } from './errors.ts'
import { loadTls, type TlsMaterial } from './tls.ts'
import type { MetricsListener } from './startup.ts'

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
const { afterListen, beforeListen, listenMetrics } = await import('./startup.ts')
const { terminalLogging } = await import('./logger.ts')
const app = await buildApp(config, {
  fastify: {
    ...(tls ? { http2: true, https: { allowHTTP1: true, key: tls.key, cert: tls.cert } } : {}),
    // a terminal in development: one readable line per request (src/logger.ts)
    ...terminalLogging({ level: config.logLevel, production: config.production, isTTY: process.stdout.isTTY })
  }
}).catch((err: unknown) => {
  // another process owns the embedded database: one line saying which, as for a wrong setting
  if (err instanceof EmbeddedDatabaseInUse) {
    console.error(err.message)
    process.exit(1)
  }
  throw err
})
if (tls) {
  app.log.info({ certFile: tls.certFile, fingerprint: tls.fingerprint },
    tls.generated ? 'generated a self-signed development certificate' : 'TLS certificate loaded')
}

// the metrics listener (METRICS_PORT) lives and dies with the main one
let metricsListener: MetricsListener | null = null

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error')
  else app.log.info({ signal }, 'shutting down')
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
