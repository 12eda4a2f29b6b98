// TOTP secrets sealed at rest with AES-256-GCM under MFA_ENCRYPTION_KEY
// (docs/decisions/accounts.md, Second factors). The sealed text names its key: `v1.<key
// id>.<iv>.<ciphertext>.<tag>` (base64url), the key id being the first 8 bytes of the SHA-256 of
// the AES key, so a text sealed under a key since moved to MFA_PREVIOUS_ENCRYPTION_KEYS still
// opens, and a database copy says which key it needs without saying anything about the key. The AES
// key is the SHA-256 of the configured string (at least 32 bytes of it). The user id is the
// additional authenticated data: a sealed secret copied to another account's row does not open
// there.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

const VERSION = 'v1'

interface Key { id: string, aes: Buffer }

function keyOf (configured: string): Key {
  const aes = createHash('sha256').update(configured).digest()
  return { id: createHash('sha256').update(aes).digest().subarray(0, 8).toString('base64url'), aes }
}

export interface Sealer {
  seal: (plain: string, userId: string) => string
  /** the plain text, and whether it was sealed under a key other than the current one; null when no key opens it */
  open: (sealed: string, userId: string) => { plain: string, stale: boolean } | null
}

export function createSealer (current: string, previous: readonly string[] = []): Sealer {
  const sealing = keyOf(current)
  const keys = new Map<string, Key>()
  for (const k of [current, ...previous].map(keyOf)) if (!keys.has(k.id)) keys.set(k.id, k)

  return {
    seal (plain, userId) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', sealing.aes, iv)
      cipher.setAAD(Buffer.from(userId))
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return [VERSION, sealing.id, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.')
    },
    open (sealed, userId) {
      const [version, id, iv, body, tag] = sealed.split('.')
      const key = id === undefined ? undefined : keys.get(id)
      if (version !== VERSION || !key || iv === undefined || body === undefined || tag === undefined) return null
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.aes, Buffer.from(iv, 'base64url'))
        decipher.setAAD(Buffer.from(userId))
        decipher.setAuthTag(Buffer.from(tag, 'base64url'))
        const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
        return { plain, stale: key.id !== sealing.id }
      } catch {
        return null
      }
    }
  }
}
