// What a password reset (or sign-out everywhere with the keys) revoked, as a person reads it: how
// many API keys, and which webhook endpoints were disabled (docs/decisions/accounts.md, Recovery
// cuts off an intruder).
import { plural } from './dom.js'

/** revoked: {apiKeys: number, webhooks: [{id, url}]} as the API answers it */
export function revokedText (revoked) {
  const keys = revoked.apiKeys === 0 ? 'No API key was revoked' : `${plural(revoked.apiKeys, 'API key')} ${revoked.apiKeys === 1 ? 'was' : 'were'} revoked`
  if (revoked.webhooks.length === 0) return `${keys}, and no webhook endpoint was disabled.`
  return `${keys}, and ${revoked.webhooks.length === 1 ? 'this webhook endpoint was' : 'these webhook endpoints were'} disabled: ` +
    `${revoked.webhooks.map((w) => w.url).join(', ')}. Make new ones below if you need them.`
}
