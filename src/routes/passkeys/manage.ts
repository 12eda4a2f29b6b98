// /auth/passkeys (docs/decisions/accounts.md, Passkeys): a signed-in person registers a passkey
// (options, then the browser's answer), lists and removes theirs. A person's JWT only: an API key
// is refused (403), as on every route that names no apiKeyScope. Registering and removing need a
// fresh proof (config.freshProof), as every change of how the account signs in does.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { BODY_ERRORS, errorResponses, IdParamsSchema, PARAM_ERRORS } from '../../../schemas/common.ts'
import { PasskeyListSchema, PasskeyRemoveBodySchema, RegisterPasskeyBodySchema, RegistrationOptionsSchema, PasskeySchema } from '../../../schemas/passkeys.ts'
import { BadRequest, Conflict, FactorProofRequired, notFound, ProofRefused, Unauthorized } from '../../errors.ts'
import { PASSKEY_MESSAGES, type PasskeyListing } from '../../services/passkeys/index.ts'
import { AUDIT } from '../../services/accounts/audit.ts'
import { NOTICE } from '../../services/notices/what.ts'
import { requestMeta } from '../accounts/normalize.ts'

const tags = ['auth']
const security = [{ bearer: [] }]

const shown = (p: PasskeyListing) => ({ ...p, createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null })

const passkeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { passkeys, audit, credentials, mfa, notices } = app.services
  app.addHook('onRequest', app.authenticate)

  app.post('/passkeys/register/options', {
    schema: {
      operationId: 'passkeyRegistrationOptions',
      tags, security,
      summary: 'Begin registering a passkey: the options for navigator.credentials.create()',
      response: { 200: RegistrationOptionsSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    config: { freshProof: true }
  }, async (request) => {
    const options = await passkeys.registrationOptions(request.user.id)
    if (!options) throw new Unauthorized()
    return options
  })

  app.post('/passkeys/register/verify', {
    schema: {
      operationId: 'registerPasskey',
      tags, security,
      summary: "Finish registering a passkey with the browser's answer; 400 when it is not accepted, 409 for a passkey registered already or one too many",
      description: "The account's first second factor (no authenticator app set up): the session moves to level 2 and every other session of the account ends.",
      body: RegisterPasskeyBodySchema,
      response: { 201: PasskeySchema, ...errorResponses(...BODY_ERRORS, 401, 403, 409, 429, 500, 503) }
    },
    config: { freshProof: true }
  }, async (request, reply) => {
    const outcome = await passkeys.register(request.user.id, request.body.response, request.body.name)
    if (!outcome.ok) {
      if (outcome.message === PASSKEY_MESSAGES.registration) throw new BadRequest(outcome.message)
      throw new Conflict(outcome.message)
    }
    const { id: userId, sid } = request.user
    await audit.record(AUDIT.passkeyAdded, userId, requestMeta(request))
    await notices.send(userId, { what: NOTICE.passkeyAdded, details: `Its name: "${outcome.passkey.name}".`, ...requestMeta(request) })
    if (outcome.first && !await mfa.hasTotp(userId)) {
      // The account's first second factor: this session proved it just now, the others proved the
      // password (or Google) alone, and end.
      if (!await app.sessions.setLevel(sid, 2, true)) throw new Unauthorized()
      await credentials.change(userId, sid, async () => true)
    }
    // a 201 names what it made (RFC 9110 15.3.2): the passkey's own path, that DELETE removes
    return reply.code(201).header('location', `${app.prefix}/passkeys/${outcome.passkey.id}`).send(shown(outcome.passkey))
  })

  app.get('/passkeys', {
    schema: {
      operationId: 'listPasskeys',
      tags, security, summary: "The user's passkeys",
      response: { 200: PasskeyListSchema, ...errorResponses(401, 403, 429, 500, 503) }
    }
  }, async (request) => ({ items: (await passkeys.list(request.user.id)).map(shown) }))

  app.delete('/passkeys/:id', {
    schema: {
      operationId: 'removePasskey',
      tags, security,
      summary: "Remove a passkey: every other session of the account ends; 404 for an unknown id or another user's",
      description: 'When it is the account\'s last second factor (no other passkey, no authenticator app), the body must prove it: ' +
        '`{passkey}`, an assertion of this passkey answering POST /auth/passkeys/signin/options (403 without, or for another passkey\'s).',
      params: IdParamsSchema,
      body: PasskeyRemoveBodySchema,
      response: { 204: Type.Null(), ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    },
    config: { freshProof: true },
    // every field is optional, so a DELETE without a body is the defaults
    preValidation: async (request) => { request.body ??= {} }
  }, async (request, reply) => {
    const { id: userId, sid } = request.user
    const assertion = request.body.passkey
    if (assertion !== undefined) {
      // a proof by the passkey itself: an assertion of this very one
      const checked = await passkeys.verifyAssertion(assertion, userId)
      if (!checked.ok) throw new ProofRefused(checked.message)
      if (checked.passkeyId !== request.params.id) throw new ProofRefused(PASSKEY_MESSAGES.notThisOne)
    }
    // a factor removed is a credential change: every other session of the account ends. The last
    // factor needs its proof, judged in the change's transaction (the user's row locked).
    const changed = await credentials.change(userId, sid, async (tx) => {
      const removed = await passkeys.removeWith(tx, userId, request.params.id)
      if (removed && assertion === undefined && !await mfa.hasFactorIn(tx, userId)) throw new FactorProofRequired()
      return removed
    })
    if (!changed) throw notFound()
    // GET /auth/info counts the passkeys: this process's view now, the others by the table's trigger
    app.accountChanges.changed(userId)
    // without a second factor left, the session has no level any more
    if (changed.value.left === 0 && !await mfa.hasTotp(userId) && !await app.sessions.setLevel(sid, null, false)) throw new Unauthorized()
    await audit.record(AUDIT.passkeyRemoved, request.user.id, requestMeta(request))
    await notices.send(userId, { what: NOTICE.passkeyRemoved, ...requestMeta(request) })
    return reply.code(204).send(null)
  })
}

export default passkeyRoutes
