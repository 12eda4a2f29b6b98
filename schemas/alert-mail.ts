// The alert digest mail's setting and its unsubscribe link (docs/integration.md, Watches and alerts).
import { Type } from '@sinclair/typebox'

export const AlertMailSchema = Type.Object({
  digest: Type.Boolean({ description: 'true: a digest mail at most once every ALERT_DIGEST_INTERVAL_H hours while alerts are raised' })
}, { title: 'AlertMail', additionalProperties: false })

export const UnsubscribeBodySchema = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'the token of the digest mail\'s unsubscribe link (/unsubscribe/<token>)' })
}, { title: 'UnsubscribeBody', additionalProperties: false })

export const UnsubscribeParamsSchema = Type.Object({
  token: Type.String({ maxLength: 200, description: 'the token of the mail\'s List-Unsubscribe URL' })
})
