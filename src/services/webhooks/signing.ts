// Standard Webhooks secrets and signatures (docs/decisions/programs.md, Webhooks). A secret is
// `whsec_` + base64 of 32 random bytes; a signature is `v1,` + base64 of HMAC-SHA256 over
// `<id>.<timestamp>.<body>` keyed with the secret's bytes. During a rotation every live secret
// signs, space-separated, so a receiver that still holds the old secret and one that already holds
// the new both verify.
import { createHmac, randomBytes } from 'node:crypto'

const PREFIX = 'whsec_'

export function newSecret (): string {
  return PREFIX + randomBytes(32).toString('base64')
}

function sign (secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64')
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')
}

/** the webhook-signature header: one signature per secret, the newest first */
export function signatureHeader (secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestamp, body)).join(' ')
}
