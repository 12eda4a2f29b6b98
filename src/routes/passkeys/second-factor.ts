// A passkey as the second factor (POST /auth/mfa/verify; docs/decisions/accounts.md, Passkeys): an
// assertion of one of the signed-in account's own passkeys moves its level-1 session to level 2, as
// a code does. A refusal is a form error on `passkey`. It does not count toward the sign-in
// backoff: a signature of the person's authenticator is nothing to guess at, and the challenge it
// signs is spent either way.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { PasskeyAssertion } from '../../../schemas/passkeys.ts'
import { AUDIT } from '../../services/accounts/audit.ts'
import { requestMeta } from '../accounts/normalize.ts'
import { completeSecondFactor } from '../mfa/second-factor.ts'

export async function passkeySecondFactor (app: FastifyInstance, request: FastifyRequest, assertion: PasskeyAssertion) {
  const { passkeys, audit } = app.services
  const userId = request.user.id
  const checked = await passkeys.verifyAssertion(assertion, userId)
  await audit.record(checked.ok ? AUDIT.mfaVerifySuccess : AUDIT.mfaVerifyFailure, userId, requestMeta(request))
  if (!checked.ok) return { status: 'error' as const, fieldError: { field: 'passkey' as const, message: checked.message } }
  return { status: 'success' as const, token: await completeSecondFactor(app, request) }
}
