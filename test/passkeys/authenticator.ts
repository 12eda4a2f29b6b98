// A software authenticator for the passkey tests (not a test file): a P-256 key made with node:crypto,
// and the attestation ('none' format) and assertion a browser would send, built byte by byte after
// the WebAuthn specification, so the service's checks run on real signatures without a browser.
// Each ceremony can be bent (another origin or RP id, no user verification, a counter set back) to
// see the service refuse it.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'

// ---------------------------------------------------------------- a minimal CBOR encoder (RFC 8949)

type Cbor = number | string | Uint8Array | Cbor[] | Map<number | string, Cbor> | { [key: string]: Cbor }

function head (major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n])
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n])
  if (n < 0x10000) { const b = Buffer.alloc(3); b[0] = (major << 5) | 25; b.writeUInt16BE(n, 1); return b }
  const b = Buffer.alloc(5); b[0] = (major << 5) | 26; b.writeUInt32BE(n, 1); return b
}

export function cbor (value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (typeof value === 'string') { const s = Buffer.from(value, 'utf8'); return Buffer.concat([head(3, s.length), s]) }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value])
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)])
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value)
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])])
}

// ---------------------------------------------------------------- the authenticator

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url')
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest()
const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_AT = 0x40

export interface Ceremony {
  /** clientDataJSON's origin (default: the authenticator's) */
  origin?: string
  /** the RP id whose hash authenticatorData carries (default: the authenticator's) */
  rpId?: string
  /** whether the user was verified (default true) */
  uv?: boolean
  /** the challenge signed (default: the options') */
  challenge?: string
  /** the signature counter to report (default: one more than the last) */
  counter?: number
}

export interface SoftAuthenticator {
  credentialId: string
  /** the registration response for these options (PublicKeyCredentialCreationOptionsJSON) */
  register: (options: { challenge: string, user: { id: string } }, bend?: Ceremony) => RegistrationAnswer
  /** the assertion for these options (PublicKeyCredentialRequestOptionsJSON) */
  assert: (options: { challenge: string }, bend?: Ceremony) => AssertionAnswer
}

export interface RegistrationAnswer {
  id: string, rawId: string, type: 'public-key'
  response: { clientDataJSON: string, attestationObject: string, transports: string[] }
  clientExtensionResults: Record<string, unknown>
}
export interface AssertionAnswer {
  id: string, rawId: string, type: 'public-key'
  response: { clientDataJSON: string, authenticatorData: string, signature: string, userHandle?: string }
  clientExtensionResults: Record<string, unknown>
}

function coseKey (publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' })
  // kty EC2, alg ES256, crv P-256, x, y
  return cbor(new Map<number, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]))
}

function authenticatorData (rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
  const c = Buffer.alloc(4)
  c.writeUInt32BE(counter)
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), c, ...(attested ? [attested] : [])])
}

export function softAuthenticator (rp: { id: string, origin: string }): SoftAuthenticator {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const rawId = randomBytes(16)
  const credentialId = b64(rawId)
  let counter = 0
  let userHandle: string | undefined

  const clientData = (type: string, options: { challenge: string }, bend: Ceremony) => Buffer.from(JSON.stringify({
    type, challenge: bend.challenge ?? options.challenge, origin: bend.origin ?? rp.origin, crossOrigin: false
  }))
  const flagsOf = (bend: Ceremony) => FLAG_UP | (bend.uv === false ? 0 : FLAG_UV)

  return {
    credentialId,
    register (options, bend = {}) {
      userHandle = options.user.id
      const idLength = Buffer.alloc(2)
      idLength.writeUInt16BE(rawId.length)
      const attested = Buffer.concat([Buffer.alloc(16), idLength, rawId, coseKey(publicKey)])
      const authData = authenticatorData(bend.rpId ?? rp.id, flagsOf(bend) | FLAG_AT, bend.counter ?? counter, attested)
      return {
        id: credentialId, rawId: credentialId, type: 'public-key',
        response: {
          clientDataJSON: b64(clientData('webauthn.create', options, bend)),
          attestationObject: b64(cbor({ fmt: 'none', attStmt: {}, authData })),
          transports: ['internal']
        },
        clientExtensionResults: {}
      }
    },
    assert (options, bend = {}) {
      counter = bend.counter ?? counter + 1
      const authData = authenticatorData(bend.rpId ?? rp.id, flagsOf(bend), counter)
      const client = clientData('webauthn.get', options, bend)
      const signature = sign('sha256', Buffer.concat([authData, sha256(client)]), privateKey)
      return {
        id: credentialId, rawId: credentialId, type: 'public-key',
        response: { clientDataJSON: b64(client), authenticatorData: b64(authData), signature: b64(signature), ...(userHandle ? { userHandle } : {}) },
        clientExtensionResults: {}
      }
    }
  }
}
