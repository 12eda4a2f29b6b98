// GET /client-config: what the dashboard needs to know about this deployment before anyone signs in.
import { Type, type Static } from '@sinclair/typebox'

export const ClientConfigSchema = Type.Object({
  googleClientId: Type.Union([Type.String(), Type.Null()], {
    description: 'the Google client id for Google Identity Services (the first of GOOGLE_CLIENT_IDS); null: no Google sign-in'
  }),
  billing: Type.Boolean({ description: 'whether subscriptions (Stripe) are configured; promo codes work either way' }),
  devOutbox: Type.Union([Type.String(), Type.Null()], {
    description: 'where mails are written instead of sent (a development server without SMTP_URL); null otherwise, always in production'
  })
}, { additionalProperties: false, examples: [{ googleClientId: null, billing: false, devOutbox: '/srv/app/.data/outbox' }] })
export type ClientConfig = Static<typeof ClientConfigSchema>
