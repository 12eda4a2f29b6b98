// TLS material for the HTTPS listener: the configured files, or in development a self-signed
// localhost certificate generated once into DATA_DIR/tls.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generate } from 'selfsigned'
import { ConfigError } from './errors.ts'

export interface TlsMaterial { key: Buffer, cert: Buffer, generated: boolean, certFile: string, fingerprint: string }

export async function loadTls (opts: { certFile: string, keyFile: string, dataDir: string }): Promise<TlsMaterial> {
  let certFile = opts.certFile
  let keyFile = opts.keyFile
  let generated = false
  if (!certFile || !keyFile) {
    const dir = join(opts.dataDir, 'tls')
    certFile = join(dir, 'localhost.crt')
    keyFile = join(dir, 'localhost.key')
    if (!existsSync(certFile) || !existsSync(keyFile)) {
      const now = new Date()
      const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
        keySize: 2048,
        algorithm: 'sha256',
        notBeforeDate: now,
        notAfterDate: new Date(now.getTime() + 825 * 24 * 3600 * 1000),
        extensions: [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
          { name: 'extKeyUsage', serverAuth: true },
          { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] }
        ]
      })
      // owner-only, as everything under DATA_DIR (docs/security.md, Findings)
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      writeFileSync(keyFile, pems.private, { mode: 0o600 })
      writeFileSync(certFile, pems.cert, { mode: 0o600 })
      generated = true
    }
  }
  const cert = readPem('TLS_CERT_FILE', certFile)
  const key = readPem('TLS_KEY_FILE', keyFile)
  // A bad file stops the start with one line naming it, not a stack trace from the TLS layer.
  let x509: X509Certificate
  try { x509 = new X509Certificate(cert) } catch { throw new ConfigError(`invalid configuration: TLS_CERT_FILE ${certFile} is not a PEM certificate`) }
  let privateKey: KeyObject
  try { privateKey = createPrivateKey(key) } catch { throw new ConfigError(`invalid configuration: TLS_KEY_FILE ${keyFile} is not a PEM private key`) }
  if (!x509.checkPrivateKey(privateKey)) throw new ConfigError(`invalid configuration: TLS_KEY_FILE ${keyFile} does not match TLS_CERT_FILE ${certFile}`)
  return { key, cert, generated, certFile, fingerprint: x509.fingerprint256 }
}

function readPem (name: string, file: string): Buffer {
  try {
    return readFileSync(file)
  } catch (err) {
    throw new ConfigError(`invalid configuration: ${name} ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`)
  }
}
