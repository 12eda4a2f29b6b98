// RFC 6238 TOTP through otpauth: SHA-1, 6 digits, 30-second steps, a code of the step before or after
// the current one accepted (a phone's clock a little off, a code typed as it changed). Which step a
// code belongs to is returned, so the caller can refuse a step at or before the last one accepted:
// each code works once (docs/decisions/accounts.md, Second factors).
import { Secret, TOTP } from 'otpauth'

export const TOTP_PERIOD_S = 30
const ISSUER = 'Profile Interest Reports'
const CODE = /^\d{6}$/

const totpOf = (base32: string, label = '') =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S, secret: Secret.fromBase32(base32) })

/** a new secret: 20 random bytes (the HMAC-SHA-1 key size RFC 4226 recommends), base32 */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32

/** the otpauth:// URL an authenticator app reads (as a QR code or a link) */
export const otpauthUrl = (base32: string, label: string): string => totpOf(base32, label).toString()

/** the 30-second step of a time in ms */
export const stepOf = (ms: number): number => Math.floor(ms / 1000 / TOTP_PERIOD_S)

/** the step `code` is the code of, within one step of `nowMs`; null when it is none of the three */
export function matchingStep (base32: string, code: string, nowMs: number): number | null {
  if (!CODE.test(code)) return null
  const delta = totpOf(base32).validate({ token: code, timestamp: nowMs, window: 1 })
  return delta === null ? null : stepOf(nowMs) + delta
}

/** the code of a step (tests, and the dashboard's browser test, compute codes with it) */
export const codeAt = (base32: string, ms: number): string => totpOf(base32).generate({ timestamp: ms })

/** what a person typed, as a code: spaces and dashes dropped */
export const normalizeCode = (typed: string): string => typed.replace(/[\s-]/g, '')

export const looksLikeTotp = (typed: string): boolean => CODE.test(normalizeCode(typed))
