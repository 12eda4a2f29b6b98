// The signed-in person's security log and notice settings: GET /auth/security-events, GET and PUT
// /auth/notices (docs/security.md, The security log; docs/security.md, Notices). A person's JWT
// only: an API key is refused (403), as on every route that names no apiKeyScope.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, PageQuerySchema } from '../../../schemas/common.ts'
import { NoticeSettingsSchema, SecurityEventListSchema } from '../../../schemas/security-log.ts'
import { Unauthorized } from '../../errors.ts'

const tags = ['auth']
const security = [{ bearer: [] }]

const securityLogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { securityLog, newDevices } = app.services
  app.addHook('onRequest', app.authenticate)

  app.get('/security-events', {
    schema: {
      operationId: 'listSecurityEvents',
      tags, security,
      summary: "The account's own security log, newest first, paged: sign-ins and failures, sign-outs, password and factor changes, " +
        'keys and webhook endpoints, sessions ended, staff actions',
      querystring: PageQuerySchema,
      response: { 200: SecurityEventListSchema, ...errorResponses(400, 401, 403, 429, 500, 503) }
    }
  }, async (request) => await securityLog.list(request.user.id, request.query.offset, request.query.limit))

  app.get('/notices', {
    schema: {
      operationId: 'getNoticeSettings',
      tags, security,
      summary: 'Whether a sign-in from a new device mails a notice (every other security notice is always mailed)',
      response: { 200: NoticeSettingsSchema, ...errorResponses(401, 403, 429, 500, 503) }
    }
  }, async (request) => {
    const on = await newDevices.wanted(request.user.id)
    if (on === null) throw new Unauthorized()
    return { newDevice: on }
  })

  app.put('/notices', {
    schema: {
      operationId: 'setNoticeSettings',
      tags, security,
      summary: 'Turn the new-device sign-in notice on or off (the only notice that can be turned off); needs a fresh proof',
      body: NoticeSettingsSchema,
      response: { 200: NoticeSettingsSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
    },
    // turning a security notice off is what an intruder would do first (docs/decisions/accounts.md,
    // Security notices)
    config: { freshProof: true }
  }, async (request) => {
    if (!await newDevices.setWanted(request.user.id, request.body.newDevice)) throw new Unauthorized()
    return { newDevice: request.body.newDevice }
  })
}

export default securityLogRoutes
