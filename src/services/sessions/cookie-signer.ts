// The session cookie's signer (@fastify/cookie's Signer: HMAC-SHA256, the first secret signs, the
// others still verify), with what it computed kept. A refresh verifies its cookie each time, an HMAC
// over the same few values again and again; both answers are pure functions of their input and the
// secrets, so a kept one is the one the Signer would compute (see docs/benchmarks.md, Caches on the
// hot paths). Only verified cookies are kept: a cookie that fails verification is checked afresh each
// time (a constant-time comparison in the Signer), and a forged cookie cannot push anything out.
import { Signer } from '@fastify/cookie'
import { createViewCache } from '../caches/view-cache.ts'

export interface UnsignResult { valid: boolean, renew: boolean, value: string | null }

export interface CookieSigner {
  sign: (value: string) => string
  unsign: (signed: string) => UnsignResult
}

export function createCookieSigner (secrets: string[], maxEntries = 10_000): CookieSigner {
  const signer = new Signer(secrets, 'sha256')
  const signed = createViewCache<string>({ maxEntries, ttlMs: Infinity })
  const verified = createViewCache<UnsignResult>({ maxEntries, ttlMs: Infinity })
  return {
    sign (value) {
      let s = signed.peek(value)
      if (s === undefined) {
        s = signer.sign(value)
        signed.set(value, s)
      }
      return s
    },
    unsign (cookie) {
      const known = verified.peek(cookie)
      if (known) return { ...known }
      const result = signer.unsign(cookie) as UnsignResult
      if (result.valid) verified.set(cookie, { ...result })
      return result
    }
  }
}
