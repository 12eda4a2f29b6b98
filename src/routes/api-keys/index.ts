// /auth/api-keys (docs/decisions/programs.md, API keys): a person issues, lists and revokes keys
// for their programs. These routes take a person's JWT only: a key is refused here (403), as on
// every route that names no apiKeyScope. Issuing one needs a fresh proof of the person
// (config.freshProof).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { BODY_ERRORS, errorResponses, PARAM_ERRORS } from '../../../schemas/common.ts'
import { ApiKeyIdParamsSchema, ApiKeyListSchema, CreateApiKeyBodySchema, IssuedApiKeySchema } from '../../../schemas/api-keys.ts'
import { AUDIT } from '../../services/accounts/audit.ts'
import { NOTICE } from '../../services/notices/what.ts'
import { requestMeta } from '../accounts/normalize.ts'

const tags = ['auth']
const security = [{ bearer: [] }]
const iso = (d: Date | null) => d?.toISOString() ?? null

const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { apiKeys, audit, notices } = app.services
  app.addHook('onRequest', app.authenticate)

  app.post('/api-keys', {
    schema: {
      operationId: 'createApiKey',
      tags, security,
      summary: 'Issue an API key (shown once); at most 20 live keys per user (409)',
      body: CreateApiKeyBodySchema,
      response: { 201: IssuedApiKeySchema, ...errorResponses(...BODY_ERRORS, 401, 403, 409, 429, 500, 503) }
    },
    config: { freshProof: true }
  }, async (request, reply) => {
    const issued = await apiKeys.create(request.user.id, request.body)
    // a program given access: audited and told to the mailbox, by name and prefix, never the key (docs/security.md, Notices)
    const meta = requestMeta(request)
    await audit.record(AUDIT.apiKeyCreate, request.user.id, meta)
    await notices.send(request.user.id, {
      what: NOTICE.apiKeyCreated, details: `Its name: "${issued.name}" (pir_${issued.prefix}_…), scopes: ${issued.scopes.join(', ')}.`, ...meta
    })
    // a 201 names what it made (RFC 9110 15.3.2): the key's own path, that DELETE revokes
    return reply.code(201).header('location', `${app.prefix}/api-keys/${issued.id}`).send({ ...issued, createdAt: issued.createdAt.toISOString(), expiresAt: iso(issued.expiresAt) })
  })

  app.get('/api-keys', {
    schema: {
      operationId: 'listApiKeys',
      tags, security, summary: "The user's API keys (never the key itself)",
      response: { 200: ApiKeyListSchema, ...errorResponses(401, 403, 429, 500, 503) }
    }
  }, async (request) => {
    const listed = await apiKeys.list(request.user.id)
    return { items: listed.map((k) => ({ ...k, createdAt: k.createdAt.toISOString(), lastUsedAt: iso(k.lastUsedAt), expiresAt: iso(k.expiresAt) })) }
  })

  app.delete('/api-keys/:id', {
    schema: {
      operationId: 'revokeApiKey',
      tags, security,
      summary: 'Revoke an API key: refused on every instance within a second; 404 for an unknown id or another user\'s',
      params: ApiKeyIdParamsSchema,
      response: { 204: Type.Null(), ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request, reply) => {
    await apiKeys.revoke(request.user.id, request.params.id)
    return reply.code(204).send(null)
  })
}

export default apiKeyRoutes
