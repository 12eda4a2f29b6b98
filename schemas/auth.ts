// Bodies and answers of /auth/*.
import { Type, type Static } from '@sinclair/typebox'
import { FieldErrorSchema, UuidSchema } from './common.ts'
import { AuthenticationResponseSchema } from './passkeys.ts'

// E-mail addresses are trimmed and lower-cased before validation (see src/routes/accounts/normalize.ts).
export const EmailSchema = Type.String({ format: 'email', minLength: 3, maxLength: 254 })
export const PasswordSchema = Type.String({ minLength: 8, maxLength: 256 })
export const AcquisitionCodeSchema = Type.String({ maxLength: 256 })

export const SigninBodySchema = Type.Object({
  email: EmailSchema,
  // sign-in accepts any stored password; only its length is capped (docs/architecture.md, Security rules)
  password: Type.String({ minLength: 1, maxLength: 256 }),
  token: Type.Optional(Type.Boolean({ description: 'return the JWT in the body' })),
  remember: Type.Optional(Type.Boolean({ description: 'false: browser-session cookie; never changes the JWT lifetime' }))
}, { title: 'SigninBody', examples: [{ email: 'jane@example.com', password: 'correct horse battery', token: true }] })
export type SigninBody = Static<typeof SigninBodySchema>

export const SignupBodySchema = Type.Object({
  email: EmailSchema,
  password: PasswordSchema,
  token: Type.String({ minLength: 1, maxLength: 4096, description: 'CAPTCHA token' }),
  promocode: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  acquisition_code: Type.Optional(AcquisitionCodeSchema)
}, { title: 'SignupBody', examples: [{ email: 'jane@example.com', password: 'correct horse battery', token: 'captcha-token', acquisition_code: 'spring-campaign' }] })
export type SignupBody = Static<typeof SignupBodySchema>

export const HashParamsSchema = Type.Object({ hash: Type.String({ minLength: 1, maxLength: 128 }) })

export const AuthInfoSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  confirmed: Type.Boolean(),
  hasPassword: Type.Boolean(),
  idp: Type.Object({ google: Type.Boolean() }),
  role: Type.Union([Type.Literal('user'), Type.Literal('support'), Type.Literal('admin')], {
    description: 'user, or a staff role: support or admin may call /admin (with a second factor; docs/operations.md, Support)'
  }),
  acquisitionCode: Type.Optional(Type.String()),
  promocode: Type.Optional(Type.String()),
  reportCredits: Type.Integer(),
  subscription: Type.Union([
    Type.Object({ status: Type.String(), currentPeriodEnd: Type.Union([Type.String(), Type.Null()]) }),
    Type.Null()
  ]),
  mfa: Type.Object({
    totp: Type.Boolean({ description: 'an authenticator app (TOTP) is set up and confirmed' }),
    passkeys: Type.Integer({ description: 'how many passkeys the account has' }),
    recoveryCodesLeft: Type.Integer({ description: 'recovery codes not used yet' })
  }, { title: 'MfaStatus' }),
  createdAt: Type.String()
}, { title: 'AuthInfo' })
export type AuthInfo = Static<typeof AuthInfoSchema>

// A recovery link's secret. Nothing about its form is refused here: an empty or odd one is simply an
// invalid link, which GET and POST /auth/recovery/{hash} answer as such (a form error on `password`),
// not as a schema failure. (Segments over 100 characters never reach the route: maxParamLength.)
export const RecoveryHashParamsSchema = Type.Object({ hash: Type.String({ maxLength: 128 }) })

export const RecoveryBodySchema = Type.Object({
  email: EmailSchema
}, { title: 'RecoveryBody', examples: [{ email: 'jane@example.com' }] })
export type RecoveryBody = Static<typeof RecoveryBodySchema>

export const RecoveryPasswordBodySchema = Type.Object({
  password: PasswordSchema,
  keepApiKeys: Type.Optional(Type.Boolean({
    description: 'true: keep the account\'s API keys and webhook endpoints; left out or false, the reset revokes every key and disables every endpoint ' +
      '(whoever knew the old password may have made them)'
  }))
}, { title: 'RecoveryPasswordBody', examples: [{ password: 'a new correct horse battery' }, { password: 'a new correct horse battery', keepApiKeys: true }] })
export type RecoveryPasswordBody = Static<typeof RecoveryPasswordBodySchema>

// Google Identity Services posts {clientId, credential, select_by}; the checks that matter are on the
// credential itself, so these only bound the sizes.
export const IdpBodySchema = Type.Object({
  clientId: Type.String({ maxLength: 256 }),
  credential: Type.String({ maxLength: 8192, description: 'the Google ID token (a JWT)' }),
  select_by: Type.String({ maxLength: 64 }),
  token: Type.Optional(Type.Boolean({ description: 'return the JWT in the body' })),
  acquisition_code: Type.Optional(AcquisitionCodeSchema)
}, { title: 'IdpBody', examples: [{ clientId: '1234.apps.googleusercontent.com', credential: 'eyJhbGciOiJSUzI1NiIs…', select_by: 'btn', token: true }] })
export type IdpBody = Static<typeof IdpBodySchema>

// The account page: its sessions, a password change, deleting the account
// (docs/decisions/accounts.md, Account control).
export const SessionItemSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: "the session's public id (the JWT's sid), never the cookie's secret" }),
  createdAt: Type.String({ format: 'date-time', description: 'sign-in' }),
  lastUsedAt: Type.String({ format: 'date-time', description: 'the last refresh, to within a minute' }),
  userAgent: Type.Union([Type.String(), Type.Null()], { description: 'the User-Agent at sign-in, at most 256 characters' }),
  device: Type.Union([Type.String(), Type.Null()], {
    description: 'the User-Agent as a person reads it, "Chrome on Linux" (bowser); null when it names no known browser or system'
  }),
  ipPrefix: Type.Union([Type.String(), Type.Null()], { description: 'the network of the sign-in: an IPv4 /24 (a.b.c.0/24) or an IPv6 /48' }),
  current: Type.Boolean({ description: "the session of the request's own JWT" })
}, { title: 'SessionItem' })
export const SessionListSchema = Type.Object({
  items: Type.Array(SessionItemSchema, { description: 'live sessions, most recently used first' })
}, { title: 'SessionList',
  examples: [{
    items: [{
      id: '7d6c1b2e-1f2a-4c3b-9d4e-5f6a7b8c9d0e', createdAt: '2030-01-01T10:00:00.000Z', lastUsedAt: '2030-01-02T09:30:00.000Z',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', device: 'Firefox on Linux', ipPrefix: '203.0.113.0/24', current: true
    }]
  }]
})
export type SessionList = Static<typeof SessionListSchema>

export const SessionIdParamsSchema = Type.Object({ id: UuidSchema() })

export const PasswordChangeBodySchema = Type.Object({
  // the stored password is checked as sign-in checks it: any length it may have, up to the cap
  currentPassword: Type.String({ minLength: 1, maxLength: 256 }),
  newPassword: PasswordSchema
}, { title: 'PasswordChangeBody', examples: [{ currentPassword: 'correct horse battery', newPassword: 'a new correct horse battery' }] })
export type PasswordChangeBody = Static<typeof PasswordChangeBodySchema>

// Either proof the account has: its password, or a fresh Google credential of its linked Google account.
export const AccountDeleteBodySchema = Type.Object({
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  clientId: Type.Optional(Type.String({ maxLength: 256 })),
  credential: Type.Optional(Type.String({ maxLength: 8192, description: 'a Google ID token of the linked Google account' }))
}, { title: 'AccountDeleteBody', examples: [{ password: 'correct horse battery' }, { clientId: '1234.apps.googleusercontent.com', credential: 'eyJhbGciOiJSUzI1NiIs…' }] })
export type AccountDeleteBody = Static<typeof AccountDeleteBodySchema>

// POST /auth/reauthenticate: the proofs of deleting the account, and a second factor's code; a credential's clientId may be
// left out while one Google client is configured (docs/decisions/accounts.md, Fresh
// authentication).
export const ReauthenticateBodySchema = Type.Object({
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'a code of the authenticator app (TOTP), or a recovery code' })),
  passkey: Type.Optional(AuthenticationResponseSchema),
  clientId: Type.Optional(Type.String({ maxLength: 256 })),
  credential: Type.Optional(Type.String({ maxLength: 8192, description: 'a Google ID token of the linked Google account' }))
}, { title: 'ReauthenticateBody', examples: [{ password: 'correct horse battery' }, { code: '123456' }, { credential: 'eyJhbGciOiJSUzI1NiIs…' }] })
export type ReauthenticateBody = Static<typeof ReauthenticateBodySchema>

// POST /auth/google/nonce: what a Google proof of the owner must carry (docs/decisions/accounts.md,
// Fresh authentication)
export const GoogleNonceSchema = Type.Object({
  nonce: Type.String({ description: "for Google Identity Services' `nonce` option; accepted once" }),
  expiresAt: Type.String({ format: 'date-time', description: 'when it stops being accepted' })
}, { title: 'GoogleNonce', examples: [{ nonce: 'q4f0TkU1q9mS3n2b7Yx0aLw8cVd6Ez1R', expiresAt: '2026-01-01T12:10:00.000Z' }] })

export const ReauthenticatedSchema = Type.Object({
  status: Type.Literal('success'),
  token: Type.String({ description: 'a new JWT of the same session, whose proof of its owner is now' })
}, { title: 'Reauthenticated' })

// What cutting an account's programs off did (a reset by recovery link, sign-out everywhere with
// `apiKeys: true`; docs/decisions/accounts.md, Recovery cuts off an intruder).
export const RevokedAccessSchema = Type.Object({
  apiKeys: Type.Integer({ minimum: 0, description: 'how many API keys were revoked' }),
  webhooks: Type.Array(Type.Object({ id: UuidSchema(), url: Type.String() }, { title: 'DisabledWebhook' }), {
    description: 'the webhook endpoints disabled: nothing more is sent to them (delete them and create them again to resume)'
  })
}, { title: 'RevokedAccess' })

export const RecoveryResultSchema = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  fieldError: Type.Optional(FieldErrorSchema),
  // on success: what the reset revoked and disabled (nothing when `keepApiKeys` was true)
  revoked: Type.Optional(RevokedAccessSchema)
}, { title: 'RecoveryResult', examples: [{ status: 'success', revoked: { apiKeys: 2, webhooks: [{ id: '7d6c1b2e-1f2a-4c3b-9d4e-5f6a7b8c9d0e', url: 'https://hooks.example/pir' }] } }] })

export const EndSessionsBodySchema = Type.Object({
  apiKeys: Type.Optional(Type.Boolean({ description: 'true: also revoke every API key and disable every webhook endpoint of the account' }))
}, { title: 'EndSessionsBody', examples: [{ apiKeys: true }] })

export const EndSessionsResultSchema = Type.Object({
  status: Type.Literal('success'),
  revoked: Type.Optional(RevokedAccessSchema)
}, { title: 'EndSessionsResult', examples: [{ status: 'success' }, { status: 'success', revoked: { apiKeys: 1, webhooks: [] } }] })
