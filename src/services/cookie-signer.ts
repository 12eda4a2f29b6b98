// The session cookie's signer (@fastify/cookie's Signer: HMAC-SHA256, the first secret signs, the
// others still verify), with what it computed kept. @fastify/session signs the session id on every
// request that reads a session and verifies the cookie on every request that sends one; a refresh
// pays for both HMACs each time, for the same few values over and over. Both
// are pure functions of their input and the secrets, so a kept result is the result the Signer would
// compute. Only verified cookies are kept: a cookie that fails verification is checked afresh each
// time (a constant-time comparison in the Signer), and a forged cookie cannot push anything out.
import { Signer } from '@fastify/cookie'
import { boundedMap } from './bounded-map.ts'

export interface UnsignResult { valid: boolean, renew: boolean, value: string | null }

export interface CookieSigner {
  sign: (value: string) => string
  unsign: (signed: string) => UnsignResult
}

export function createCookieSigner (secrets: string[], maxEntries = 10_000): CookieSigner {
  const signer = new Signer(secrets, 'sha256')
  const signed = boundedMap<string>(maxEntries)
  const verified = boundedMap<UnsignResult>(maxEntries)
  return {
    sign (value) {
      let s = signed.get(value)
      if (s === undefined) {
        s = signer.sign(value)
        signed.set(value, s)
      }
      return s
    },
    unsign (cookie) {
      const known = verified.get(cookie)
      if (known) return { ...known }
      const result = signer.unsign(cookie) as UnsignResult
      if (result.valid) verified.set(cookie, { ...result })
      return result
    }
  }
}
