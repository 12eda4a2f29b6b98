// The form of an API key (docs/decisions/programs.md, API keys): `pir_<prefix>_<secret>`. The
// prefix (12 hex characters, 48 random bits) names the key's row and is shown in listings; the
// secret (32 random bytes, base64url, 43 characters) is shown once and only its SHA-256 is stored.
// A prefix is hex, so the `_` after it is where the secret begins, whatever `_` the secret itself
// holds.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** what every API key begins with, and what tells a key from a JWT on a Bearer header */
export const KEY_MARK = 'pir_'
const PREFIX_BYTES = 6
const SECRET_BYTES = 32
const KEY_FORM = /^pir_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/

export interface NewKey { prefix: string, key: string, hash: string }

/** the SHA-256 of a secret, as stored (hex) */
export const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex')

export function newKey (): NewKey {
  const prefix = randomBytes(PREFIX_BYTES).toString('hex')
  const secret = randomBytes(SECRET_BYTES).toString('base64url')
  return { prefix, key: `${KEY_MARK}${prefix}_${secret}`, hash: hashOf(secret) }
}

/** the prefix and secret of a token of the key's form; null for anything else */
export function parseKey (token: string): { prefix: string, secret: string } | null {
  const m = KEY_FORM.exec(token)
  return m ? { prefix: m[1], secret: m[2] } : null
}

/** whether secret is the one whose hash is stored: compared in constant time */
export function secretMatches (secret: string, storedHash: string): boolean {
  const stored = Buffer.from(storedHash, 'hex')
  const given = createHash('sha256').update(secret).digest()
  return stored.length === given.length && timingSafeEqual(stored, given)
}
