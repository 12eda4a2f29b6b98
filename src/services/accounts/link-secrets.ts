// Secrets mailed in confirmation and recovery links (docs/architecture.md, Security rules): 32 random bytes, base64url in the
// link, only the SHA-256 stored.
import { createHash, randomBytes } from 'node:crypto'

export function newLinkSecret (): { secret: string, hash: string } {
  const secret = randomBytes(32).toString('base64url')
  return { secret, hash: hashLinkSecret(secret) }
}

export function hashLinkSecret (secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}
