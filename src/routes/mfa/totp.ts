// /auth/mfa/totp (docs/decisions/accounts.md, Second factors): set up an authenticator app (TOTP),
// confirm it with its first code (the answer is ten recovery codes, shown once), remove it. Setting
// up and removing need a fresh proof of the owner (config.freshProof); confirming needs the secret
// the set-up answered, which only that fresh session saw. A person's JWT only: an API key is
// refused (no apiKeyScope), and so is a session at level 1 (it has not proved its second factor).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses } from '../../../schemas/common.ts'
import { TotpConfirmBodySchema, TotpConfirmResultSchema, TotpRemoveBodySchema, TotpRemovedSchema, TotpSetupSchema } from '../../../schemas/mfa.ts'
import type { Config } from '../../config.ts'
import { Conflict, FactorProofRequired, notFound, Unauthorized } from '../../errors.ts'
import { AUDIT } from '../../services/accounts/audit.ts'
import { NOTICE } from '../../services/notices/what.ts'
import { CODE_MESSAGES } from '../../services/accounts/second-factor.ts'
import { requestMeta } from '../accounts/normalize.ts'
import { refuseUnproved } from '../accounts/proof-refusal.ts'

const tags = ['auth']
const security = [{ bearer: [] }]
const MINUTE = 60_000

const totpRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const { accounts, audit, mfa, credentials, secondFactor, notices } = app.services
  app.addHook('onRequest', app.authenticate)
  // guesses at a pending set-up's first code: a budget per account, as re-authentication has
  const confirmPerAccount = app.limiter({ name: 'mfa-confirm', max: config.rateLimits.signinEmail, timeWindow: 15 * MINUTE, key: (r) => r.user?.id })

  app.post('/mfa/totp', {
    schema: {
      operationId: 'beginTotp',
      tags, security,
      summary: 'Set up an authenticator app: a new TOTP secret, pending until POST /auth/mfa/totp/confirm',
      description: 'A set-up begun again replaces the pending secret. 409 when an authenticator app is set up already (remove it first).',
      response: { 200: TotpSetupSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 409, 429, 500, 503) }
    },
    config: { freshProof: true }
  }, async (request) => {
    const { id } = request.user
    const account = await accounts.info(id)
    if (!account) throw new Unauthorized()
    const setup = await mfa.beginTotp(id, account.email)
    if (!setup) throw new Conflict('an authenticator app is set up already: remove it first')
    await audit.record(AUDIT.mfaTotpEnrol, id, requestMeta(request))
    return setup
  })

  app.post('/mfa/totp/confirm', {
    schema: {
      operationId: 'confirmTotp',
      tags, security,
      summary: 'Confirm the pending authenticator app with its first code; the answer holds ten recovery codes, shown once',
      description: 'The account\'s first second factor: the session moves to level 2 (the answer\'s token says so) and every ' +
        'other session of the account ends. A wrong code is a form error on `code`; 409 when no set-up is pending.',
      body: TotpConfirmBodySchema,
      response: { 200: TotpConfirmResultSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 409, 429, 500, 503) }
    },
    config: { form: true },
    preHandler: confirmPerAccount
  }, async (request) => {
    const { id, sid } = request.user
    const checked = await mfa.checkPendingCode(id, request.body.code)
    if (checked.status === 'wrong-code') return { status: 'error' as const, fieldError: { field: 'code' as const, message: CODE_MESSAGES.wrong } }
    // The account's first factor is a credential change: the other sessions proved the password (or
    // Google) alone and end, and a sign-in that read the account before it gets no session.
    const codes = checked.status === 'none-pending'
      ? null
      : checked.firstFactor
        ? (await credentials.change(id, sid, (tx) => mfa.confirmPending(id, checked, tx)))?.value ?? null
        : await mfa.confirmPending(id, checked)
    if (codes === null) throw new Conflict('no authenticator app set-up is pending')
    await audit.record(AUDIT.mfaTotpConfirm, id, requestMeta(request))
    await notices.send(id, { what: NOTICE.totpAdded, ...requestMeta(request) })
    // the session proved the factor just now
    if (!await app.sessions.setLevel(sid, 2, true)) throw new Unauthorized()
    return { status: 'success' as const, recoveryCodes: codes, token: app.issueToken({ id, sid, aal: 2 }) }
  })

  app.delete('/mfa/totp', {
    schema: {
      operationId: 'removeTotp',
      tags, security,
      summary: 'Remove the authenticator app and its recovery codes',
      description: 'A credential change: every other session of the account ends. Without a second factor left the session ' +
        'has no level any more (the answer\'s token carries none). 404 when no authenticator app is set up or pending. ' +
        'When it is the account\'s last second factor (no passkey), the body must prove it: `{code}` or `{recoveryCode}` ' +
        '(403 `removing the last second factor needs a proof by it…` without; a wrong one is 403 too, and counts toward the code budget).',
      body: TotpRemoveBodySchema,
      response: { 200: TotpRemovedSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 404, 429, 500, 503) }
    },
    config: { freshProof: true },
    // every field is optional, so a DELETE without a body is the defaults
    preValidation: async (request) => { request.body ??= {} }
  }, async (request, reply) => {
    const { id, sid } = request.user
    const { code, recoveryCode } = request.body
    const typed = recoveryCode ?? code
    // a proof by the factor itself, checked (and its code used up) before anything changes
    if (typed !== undefined) refuseUnproved(await secondFactor.checkCode(id, typed, recoveryCode !== undefined ? 'recovery' : 'code', requestMeta(request)), reply)
    // a confirmed app removed is a credential change (docs/decisions/accounts.md, Credential
    // versions); a pending set-up is nothing of the kind: the change rolls back and the set-up goes
    // alone. The last factor needs its proof, judged in the change's transaction (the user's row
    // locked), so two removals at once cannot each leave the other as the last one.
    const changed = await credentials.change(id, sid, async (tx) => {
      if (await mfa.removeTotp(id, tx) !== 'confirmed') return null
      if (typed === undefined && !await mfa.hasFactorIn(tx, id)) throw new FactorProofRequired()
      return true
    })
    if (changed === null) {
      const removed = await mfa.removeTotp(id)
      if (removed === 'none') throw notFound('no authenticator app is set up')
      return { status: 'success' as const, token: app.issueToken(request.user) }
    }
    await audit.record(AUDIT.mfaTotpRemove, id, requestMeta(request))
    await notices.send(id, { what: NOTICE.totpRemoved, ...requestMeta(request) })
    const stillHasFactor = await mfa.hasFactor(id)
    if (!stillHasFactor && !await app.sessions.setLevel(sid, null, false)) throw new Unauthorized()
    return { status: 'success' as const, token: app.issueToken(stillHasFactor ? { id, sid, aal: 2 } : { id, sid }) }
  })
}

export default totpRoutes
