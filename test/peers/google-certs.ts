// A stand-in for Google's certificate endpoint and Google's signer of ID tokens: an RSA key pair in an
// X.509 certificate, served as the PEM map {kid: certificate} that google-auth-library fetches in Node
// (GOOGLE_CERTS_URL), and RS256 ID tokens signed with it.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sign as rsaSign } from 'node:crypto'
import { generate } from 'selfsigned'

export const TEST_CLIENT_ID = 'test-client.apps.googleusercontent.com'

export interface IdTokenOptions {
  /** header kid; defaults to the served key's */
  kid?: string
  /** sign with a key that is not served (bad signature) */
  foreignKey?: boolean
}

async function keyPair () {
  const now = new Date()
  const pems = await generate([{ name: 'commonName', value: 'google-certs-peer' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 3600_000),
    notAfterDate: new Date(now.getTime() + 24 * 3600_000)
  })
  return { privateKey: pems.private, cert: pems.cert }
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

export async function startGoogleCerts () {
  const [served, foreign] = await Promise.all([keyPair(), keyPair()])
  const kid = 'peer-key-1'
  let fetches = 0
  const server = createServer((req, res) => {
    fetches++
    res.setHeader('content-type', 'application/json; charset=utf-8')
    // like Google: the library caches the map for max-age seconds
    res.setHeader('cache-control', 'public, max-age=300')
    res.end(JSON.stringify({ [kid]: served.cert }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/oauth2/v1/certs`,
    kid,
    get fetches () { return fetches },
    /** an ID token as Google Identity Services hands it to the page; `claims` override the defaults */
    idToken (claims: Record<string, unknown> = {}, opts: IdTokenOptions = {}): string {
      const iat = Math.floor(Date.now() / 1000)
      const payload = {
        iss: 'https://accounts.google.com',
        azp: TEST_CLIENT_ID,
        aud: TEST_CLIENT_ID,
        sub: '100000000000000000001',
        email: 'someone@example.com',
        email_verified: true,
        name: 'Some One',
        iat,
        exp: iat + 3600,
        ...claims
      }
      const signed = `${b64url({ alg: 'RS256', kid: opts.kid ?? kid, typ: 'JWT' })}.${b64url(payload)}`
      const signature = rsaSign('sha256', Buffer.from(signed), opts.foreignKey ? foreign.privateKey : served.privateKey)
      return `${signed}.${signature.toString('base64url')}`
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export type GoogleCertsPeer = Awaited<ReturnType<typeof startGoogleCerts>>
