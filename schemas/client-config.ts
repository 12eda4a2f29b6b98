// GET /client-config: what the dashboard needs to know about this deployment before anyone signs in.
import { Type, type Static } from '@sinclair/typebox'

export const ClientConfigSchema = Type.Object({
  googleClientId: Type.Union([Type.String(), Type.Null()], {
    description: 'the Google client id for Google Identity Services (the first of GOOGLE_CLIENT_IDS); null: no Google sign-in'
  }),
  billing: Type.Boolean({ description: 'whether subscriptions (Stripe) are configured; promo codes work either way' }),
  devOutbox: Type.Union([Type.String(), Type.Null()], {
    description: 'where mails are written instead of sent (a development server without SMTP_URL); null otherwise, always in production'
  }),
  development: Type.Boolean({
    description: 'whether this is a development server (NODE_ENV other than production): the page may then name commands its developer can run, such as the one that makes a promo code'
  })
}, { title: 'ClientConfig', additionalProperties: false, examples: [{ googleClientId: null, billing: false, devOutbox: '/srv/app/.data/outbox', development: true }] })
export type ClientConfig = Static<typeof ClientConfigSchema>
