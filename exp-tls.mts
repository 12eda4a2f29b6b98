import net from 'node:net'
import tls from 'node:tls'
import { buildApp } from './src/app.ts'
import { loadConfig } from './src/config.ts'
import { loadTls } from './src/tls.ts'
import { mkdtempSync } from 'node:fs'
const dir = mkdtempSync('/tmp/exp/d-')
const config = loadConfig({ NODE_ENV: 'test', TLS: 'off', ALLOW_HTTP: 'true', CAPTCHA: 'off', LOG_LEVEL: 'silent', DATA_DIR: dir, JWT_SECRET: 'test-jwt-secret-0123456789abcdefghijklmnop', SESSION_SECRET: 'test-session-secret-0123456789abcdefghijkl', MFA_ENCRYPTION_KEY: 'test-mfa-encryption-key-0123456789abcdef', WORKERS: '0', ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' })
const m = await loadTls({ certFile: '', keyFile: '', dataDir: dir })
const app = await buildApp(config, { fastify: { http2: true, https: { allowHTTP1: true, key: m.key, cert: m.cert } } })
await app.listen({ port: 0, host: '127.0.0.1' })
const port = (app.server.address() as net.AddressInfo).port
const MiB = 1024 * 1024
function attempt (mode: string): Promise<string> {
  return new Promise((resolve) => {
    const s = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] })
    let got = ''
    let sentBody = false
    const body = Buffer.alloc(2 * MiB, 'x')
    s.on('data', (d) => {
      got += d.toString('latin1')
      if (mode === 'expect' && !sentBody && got.startsWith('HTTP/1.1 100')) { sentBody = true; s.write(body) }
    })
    s.on('error', (e) => resolve(`ERROR ${(e as NodeJS.ErrnoException).code} after ${JSON.stringify(got.slice(0, 40))}`))
    s.on('close', () => resolve(got.split('\r\n')[0] + ' | ' + got.length))
    const path = '/api/v1/auth/signin'
    s.on('secureConnect', () => {
      if (mode === 'expect') s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`)
      if (mode === 'expect-eager') { s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`); setTimeout(() => s.write(body), 50) }
      if (mode === 'length') { s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`); s.write(body) }
      if (mode === 'chunked') {
        s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`)
        for (let i = 0; i < 32; i++) s.write(`10000\r\n${'x'.repeat(0x10000)}\r\n`)
        s.write('0\r\n\r\n')
      }
    })
    setTimeout(() => { s.end() }, 3000)
  })
}
for (const mode of ['expect', 'expect-eager', 'length', 'chunked']) {
  const r: Record<string, number> = {}
  for (let i = 0; i < 10; i++) { const x = await attempt(mode); r[x] = (r[x] ?? 0) + 1 }
  console.log(mode, r)
}
await app.close()
process.exit(0)
