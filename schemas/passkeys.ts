// Passkeys (WebAuthn; docs/decisions/accounts.md, Passkeys): the ceremonies' options as the
// browser's navigator.credentials calls take them (JSON, binary fields base64url), the responses as
// @simplewebauthn/browser sends them back, and a passkey as its owner sees it.
import { Type, type Static } from '@sinclair/typebox'

/** base64url, as WebAuthn's JSON forms carry binary fields (padding tolerated) */
const B64 = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+={0,2}$', ...(description ? { description } : {}) })
const Transports = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 })
const ExtensionResults = Type.Record(Type.String(), Type.Unknown(), { description: 'the client extension results, as the browser gives them' })
const Attachment = Type.String({ maxLength: 32, description: '`platform` or `cross-platform`' })

export const RegistrationResponseSchema = Type.Object({
  id: B64(1024, 'the credential id'),
  rawId: B64(1024),
  type: Type.Literal('public-key'),
  response: Type.Object({
    clientDataJSON: B64(4096),
    attestationObject: B64(16384),
    authenticatorData: Type.Optional(B64(16384)),
    transports: Type.Optional(Transports),
    publicKeyAlgorithm: Type.Optional(Type.Integer()),
    publicKey: Type.Optional(B64(4096))
  }),
  authenticatorAttachment: Type.Optional(Attachment),
  clientExtensionResults: Type.Optional(ExtensionResults)
}, { title: 'PasskeyRegistrationResponse', description: "navigator.credentials.create()'s answer in its JSON form (RegistrationResponseJSON)" })
export type PasskeyRegistration = Static<typeof RegistrationResponseSchema>

export const AuthenticationResponseSchema = Type.Object({
  id: B64(1024, 'the credential id'),
  rawId: B64(1024),
  type: Type.Literal('public-key'),
  response: Type.Object({
    clientDataJSON: B64(4096),
    authenticatorData: B64(16384),
    signature: B64(1024),
    userHandle: Type.Optional(B64(128))
  }),
  authenticatorAttachment: Type.Optional(Attachment),
  clientExtensionResults: Type.Optional(ExtensionResults)
}, { title: 'PasskeyAssertion', description: "navigator.credentials.get()'s answer in its JSON form (AuthenticationResponseJSON)" })
export type PasskeyAssertion = Static<typeof AuthenticationResponseSchema>

const Descriptor = Type.Object({
  id: Type.String(),
  type: Type.String(),
  transports: Type.Optional(Type.Array(Type.String()))
})

export const RegistrationOptionsSchema = Type.Object({
  challenge: Type.String({ description: 'base64url; accepted once, for a few minutes' }),
  rp: Type.Object({ id: Type.Optional(Type.String()), name: Type.String() }),
  user: Type.Object({ id: Type.String({ description: 'the user handle, base64url' }), name: Type.String(), displayName: Type.String() }),
  pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String() })),
  timeout: Type.Optional(Type.Integer()),
  excludeCredentials: Type.Optional(Type.Array(Descriptor, { description: "the account's passkeys: an authenticator holding one makes no second" })),
  authenticatorSelection: Type.Optional(Type.Object({
    authenticatorAttachment: Type.Optional(Type.String()),
    residentKey: Type.Optional(Type.String()),
    requireResidentKey: Type.Optional(Type.Boolean()),
    userVerification: Type.Optional(Type.String())
  })),
  attestation: Type.Optional(Type.String()),
  extensions: Type.Optional(Type.Object({ credProps: Type.Optional(Type.Boolean()) })),
  hints: Type.Optional(Type.Array(Type.String()))
}, { title: 'PasskeyRegistrationOptions', description: "the options of navigator.credentials.create() in JSON form (@simplewebauthn/browser's startRegistration takes them as optionsJSON)" })

export const AssertionOptionsSchema = Type.Object({
  challenge: Type.String({ description: 'base64url; accepted once, for a few minutes' }),
  rpId: Type.Optional(Type.String()),
  timeout: Type.Optional(Type.Integer()),
  userVerification: Type.Optional(Type.String()),
  allowCredentials: Type.Optional(Type.Array(Descriptor))
}, { title: 'PasskeyAssertionOptions', description: "the options of navigator.credentials.get() in JSON form (@simplewebauthn/browser's startAuthentication takes them as optionsJSON)" })

export const RegisterPasskeyBodySchema = Type.Object({
  response: RegistrationResponseSchema,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'how its owner will recognise it; "Passkey N" when absent' }))
}, { title: 'RegisterPasskeyBody' })

export const PasskeySigninBodySchema = Type.Object({
  response: AuthenticationResponseSchema,
  token: Type.Optional(Type.Boolean({ description: 'true: the answer carries a JWT (the cookie is set either way)' })),
  remember: Type.Optional(Type.Boolean({ description: 'false: a browser-session cookie' }))
}, { title: 'PasskeySigninBody' })

export const PasskeySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'its last sign-in or proof; null: never used' }),
  deviceType: Type.Union([Type.String(), Type.Null()], { description: '`singleDevice`, or `multiDevice` for a passkey synced between devices' }),
  backedUp: Type.Boolean({ description: 'the passkey is backed up (synced) by its provider' })
}, { title: 'Passkey' })

export const PasskeyListSchema = Type.Object({ items: Type.Array(PasskeySchema, { description: 'oldest first' }) }, { title: 'PasskeyList' })

export const PasskeySigninResultSchema = Type.Object({
  status: Type.Literal('success'),
  token: Type.Optional(Type.String({ description: 'JWT, only when the request set `token` to true' }))
}, { title: 'PasskeySigninResult' })

// DELETE /auth/passkeys/{id}: removing the account's last second factor needs an assertion of that
// passkey, not the password alone (docs/decisions/accounts.md, Second factors)
export const PasskeyRemoveBodySchema = Type.Object({
  // an assertion of the passkey being removed, answering POST /auth/passkeys/signin/options
  passkey: Type.Optional(AuthenticationResponseSchema)
}, { title: 'PasskeyRemoveBody' })
