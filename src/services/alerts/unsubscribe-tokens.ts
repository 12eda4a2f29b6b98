// The digest mail's unsubscribe token (docs/decisions/watches-and-alerts.md, Watches and alerts):
// `<user id>.<issued at>.<mac>`, the issue time in whole seconds since the epoch, the mac an
// HMAC-SHA-256 over the purpose, the user id and the issue time, under a key derived with HKDF from
// MFA_ENCRYPTION_KEY for this use alone (as the audit trail's e-mail hashes are,
// src/services/accounts/audit.ts). It works without signing in for UNSUBSCRIBE_TOKEN_DAYS after it
// was issued, and it does one thing: stop that user's digest mails. A link that old, or one in the
// earlier `<user id>.<mac>` form (which carried no issue time), is expired: the account page still
// turns the digest off. A token made under a key since rotated out (MFA_PREVIOUS_ENCRYPTION_KEYS)
// still works, so a rotation does not break the links already mailed.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'
import { isUuid } from '../../../schemas/common.ts'

/** HKDF's label: this key signs unsubscribe tokens and nothing else */
const KEY_INFO = 'pir alert digest unsubscribe v1'
/** what the mac covers besides the user id: a mac made for another purpose never passes here */
export const UNSUBSCRIBE_PURPOSE = 'alert-digest-unsubscribe'
/** how long a mailed unsubscribe link works */
export const UNSUBSCRIBE_TOKEN_DAYS = 90
const LIFETIME_S = UNSUBSCRIBE_TOKEN_DAYS * 86_400

const MAC = /^[A-Za-z0-9_-]{43}$/
// whole seconds, no sign or leading zero: one issue time has one spelling, so one token one mac
const ISSUED = /^[1-9][0-9]{0,11}$/

function keyOf (secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), KEY_INFO, 32))
}

/** what a token says: the user whose digest it stops, that it is expired, or nothing (malformed, tampered, another key's) */
export type UnsubscribeVerdict = { userId: string } | 'expired' | null

export function createUnsubscribeTokens (keys: { encryptionKey: string, previousKeys: string[] }, now: () => number = Date.now) {
  const current = keyOf(keys.encryptionKey)
  const all = [current, ...keys.previousKeys.map(keyOf)]
  const mac = (key: Buffer, covered: string) => createHmac('sha256', key).update(`${UNSUBSCRIBE_PURPOSE}:${covered}`).digest('base64url')
  // compared as text: base64url's last character has spare bits, which a decoded compare would ignore
  const signedBySome = (covered: string, given: string) => {
    const text = Buffer.from(given)
    return all.some((key) => timingSafeEqual(Buffer.from(mac(key, covered)), text))
  }
  return {
    /** the token of this user's digest, issued now */
    sign (userId: string): string {
      const issued = String(Math.floor(now() / 1000))
      return `${userId}.${issued}.${mac(current, `${userId}:${issued}`)}`
    },
    verify (token: string): UnsubscribeVerdict {
      const parts = token.split('.')
      if (parts.length === 2) {
        // the earlier form, without an issue time: genuine ones are expired, anything else is nothing
        const [userId, given] = parts
        return isUuid(userId) && MAC.test(given) && signedBySome(userId, given) ? 'expired' : null
      }
      if (parts.length !== 3) return null
      const [userId, issued, given] = parts
      if (!isUuid(userId) || !ISSUED.test(issued) || !MAC.test(given)) return null
      if (!signedBySome(`${userId}:${issued}`, given)) return null
      const ageS = now() / 1000 - Number(issued)
      return ageS <= LIFETIME_S ? { userId } : 'expired'
    }
  }
}

export type UnsubscribeTokens = ReturnType<typeof createUnsubscribeTokens>
