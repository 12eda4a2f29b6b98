// The digest mail's unsubscribe token (docs/decisions.md, Watches and alerts): `<user id>.<mac>`,
// the mac an HMAC-SHA-256 over the purpose and the user id, under a key derived with HKDF from
// MFA_ENCRYPTION_KEY for this use alone (as the audit trail's e-mail hashes are,
// src/services/accounts/audit.ts). It works without signing in and never expires, and it does one
// thing: stop that user's digest mails. A token made under a key since rotated out
// (MFA_PREVIOUS_ENCRYPTION_KEYS) still works, so a rotation does not break the links already mailed.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'

/** HKDF's label: this key signs unsubscribe tokens and nothing else */
const KEY_INFO = 'pir alert digest unsubscribe v1'
/** what the mac covers besides the user id: a mac made for another purpose never passes here */
export const UNSUBSCRIBE_PURPOSE = 'alert-digest-unsubscribe'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const MAC = /^[A-Za-z0-9_-]{43}$/

function keyOf (secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), KEY_INFO, 32))
}

export function createUnsubscribeTokens (keys: { encryptionKey: string, previousKeys: string[] }) {
  const current = keyOf(keys.encryptionKey)
  const all = [current, ...keys.previousKeys.map(keyOf)]
  const mac = (key: Buffer, userId: string) => createHmac('sha256', key).update(`${UNSUBSCRIBE_PURPOSE}:${userId}`).digest('base64url')
  return {
    /** the token of this user's digest */
    sign: (userId: string): string => `${userId}.${mac(current, userId)}`,
    /** the user a token stops the digest of; null for anything else (malformed, tampered, another key's) */
    verify (token: string): string | null {
      const dot = token.indexOf('.')
      const userId = token.slice(0, dot)
      const given = token.slice(dot + 1)
      if (dot < 0 || !UUID.test(userId) || !MAC.test(given)) return null
      // compared as text: base64url's last character has spare bits, which a decoded compare would ignore
      const text = Buffer.from(given)
      return all.some((key) => timingSafeEqual(Buffer.from(mac(key, userId)), text)) ? userId : null
    }
  }
}

export type UnsubscribeTokens = ReturnType<typeof createUnsubscribeTokens>
