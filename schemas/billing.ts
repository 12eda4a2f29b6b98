// Bodies and answers of /billing/* (docs/architecture.md, Billing).
import { Type, type Static } from '@sinclair/typebox'

// Not `format: 'uri'`: Stripe's `{CHECKOUT_SESSION_ID}` placeholder is not a valid URI character.
// The origin is checked against PUBLIC_URL and CORS_ORIGINS by the billing service.
const RedirectUrl = (description: string) => Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://', description })

export const CheckoutBodySchema = Type.Object({
  successUrl: RedirectUrl('where Stripe sends the user after paying (may contain {CHECKOUT_SESSION_ID})'),
  cancelUrl: RedirectUrl('where Stripe sends the user when they go back')
}, { title: 'CheckoutBody', examples: [{ successUrl: 'https://localhost:8443/?paid=1', cancelUrl: 'https://localhost:8443/' }] })
export type CheckoutBody = Static<typeof CheckoutBodySchema>

export const PortalBodySchema = Type.Object({
  returnUrl: Type.Optional(RedirectUrl('where the portal sends the user back; default PUBLIC_URL'))
}, { title: 'PortalBody', examples: [{ returnUrl: 'https://localhost:8443/' }] })
export type PortalBody = Static<typeof PortalBodySchema>

export const BillingUrlSchema = Type.Object({
  url: Type.String({ description: 'the Stripe page to send the browser to' })
}, { title: 'BillingUrl' })

export const WebhookHeadersSchema = Type.Object({
  'stripe-signature': Type.String({ minLength: 1, maxLength: 8192 })
})

export const WebhookResultSchema = Type.Object({
  received: Type.Literal(true)
}, { title: 'WebhookResult' })

// POST /billing/promocode: the field sign-up has, for an account that already exists
export const PromocodeBodySchema = Type.Object({
  promocode: Type.String({ minLength: 1, maxLength: 64 })
}, { title: 'PromocodeBody', examples: [{ promocode: 'SPRING25' }] })
export type PromocodeBody = Static<typeof PromocodeBodySchema>
