// Entry point: config -> buildApp -> listen (HTTPS with HTTP/2 and HTTP/1.1 by ALPN), close-with-grace.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { loadTls } from './tls.ts'
import { afterListen } from './startup.ts'

let config: Config
try {
  config = loadConfig()
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message)
    process.exit(1)
  }
  throw err
}

const tls = config.tls.enabled ? await loadTls({ ...config.tls, dataDir: config.dataDir }) : undefined
const app = await buildApp(config, {
  fastify: tls ? { http2: true, https: { allowHTTP1: true, key: tls.key, cert: tls.cert } } : {}
})
if (tls) {
  app.log.info({ certFile: tls.certFile, fingerprint: tls.fingerprint },
    tls.generated ? 'generated a self-signed development certificate' : 'TLS certificate loaded')
}

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error')
  else app.log.info({ signal }, 'shutting down')
  await app.close()
})

await app.listen({ host: config.host, port: config.port })
afterListen(app, config)
