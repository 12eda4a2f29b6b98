// Bodies and answers of /auth/mfa/* (docs/decisions/accounts.md, Second factors).
import { Type, type Static } from '@sinclair/typebox'
import { FieldErrorSchema } from './common.ts'
import { AuthenticationResponseSchema } from './passkeys.ts'

const CodeSchema = Type.String({ minLength: 1, maxLength: 64, description: 'the 6-digit code the authenticator app shows' })

export const TotpSetupSchema = Type.Object({
  secret: Type.String({ description: 'the TOTP secret, base32: what a person types into an authenticator app' }),
  otpauthUrl: Type.String({ description: 'the otpauth:// URL of the secret (an authenticator app opens it, or reads it as a QR code)' })
}, { title: 'TotpSetup', examples: [{ secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Profile%20Interest%20Reports:jane%40example.com?issuer=Profile%20Interest%20Reports&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30' }] })

export const TotpConfirmBodySchema = Type.Object({
  code: CodeSchema
}, { title: 'TotpConfirmBody', examples: [{ code: '123456' }] })
export type TotpConfirmBody = Static<typeof TotpConfirmBodySchema>

export const TotpConfirmResultSchema = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  recoveryCodes: Type.Optional(Type.Array(Type.String(), { description: 'ten one-time recovery codes, shown this once' })),
  token: Type.Optional(Type.String({ description: 'a new JWT of the session, now at level 2' })),
  fieldError: Type.Optional(FieldErrorSchema)
}, { title: 'TotpConfirmResult', examples: [{ status: 'success', recoveryCodes: ['abcd-efgh-ijkl-mnop-qrst-uvwx'], token: 'eyJhbGciOiJIUzI1NiJ9…' }] })

export const TotpRemovedSchema = Type.Object({
  status: Type.Literal('success'),
  token: Type.String({ description: "a new JWT of the session, with the level its account's remaining factors give it" })
}, { title: 'TotpRemoved' })

export const MfaVerifyBodySchema = Type.Object({
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'a code of the authenticator app (or a recovery code)' })),
  recoveryCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'one of the recovery codes, used up by this call' })),
  passkey: Type.Optional(AuthenticationResponseSchema)
}, { title: 'MfaVerifyBody', examples: [{ code: '123456' }, { recoveryCode: 'abcd-efgh-ijkl-mnop-qrst-uvwx' }] })
export type MfaVerifyBody = Static<typeof MfaVerifyBodySchema>

// DELETE /auth/mfa/totp: removing the account's last second factor needs a proof by it, not the
// password alone (docs/decisions/accounts.md, Second factors)
export const TotpRemoveBodySchema = Type.Object({
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'a code of the authenticator app (or a recovery code)' })),
  recoveryCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'one of the recovery codes, used up by this call' }))
}, { title: 'TotpRemoveBody', examples: [{ code: '123456' }, { recoveryCode: 'abcd-efgh-ijkl-mnop-qrst-uvwx' }] })
