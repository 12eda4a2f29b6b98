// The alert digest mail (docs/integration.md, Watches and alerts): the signed-in user's setting
// (GET/PUT /alerts/mail), and the mail's unsubscribe, which needs no sign-in: POST /alerts/unsubscribe
// {token} from the page the mail's link opens (the GET of a link never unsubscribes: mail scanners
// follow links), and POST /alerts/mail/unsubscribe/{token}, the mail's List-Unsubscribe URL for a mail
// client's one-click unsubscribe (RFC 8058: its body, List-Unsubscribe=One-Click, is not read).
// A link works for 90 days (src/services/alerts/unsubscribe-tokens.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, PARAM_ERRORS } from '../../../schemas/common.ts'
import { AlertMailSchema, UnsubscribeBodySchema, UnsubscribeParamsSchema } from '../../../schemas/alert-mail.ts'
import { BadRequest, notFound } from '../../errors.ts'

const tags = ['alerts']
/** RFC 8058's POST body is a form; its content is fixed and says nothing, so it is taken as it comes and left unread */
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data']

const alertMailRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const digest = app.services.alertDigest
  const tokens = app.services.unsubscribeTokens

  /**
   * stop the digest of the user a token names: 400 for a token the service did not make, 404 for
   * one past its 90 days or of an account deleted since (never a 5xx: docs/security.md, Findings)
   */
  async function unsubscribe (token: string) {
    const verdict = tokens.verify(token)
    if (verdict === null) throw new BadRequest('invalid unsubscribe link')
    if (verdict === 'expired') throw notFound('unsubscribe link expired')
    if (!await digest.unsubscribe(verdict.userId)) throw notFound('unsubscribe link of an account that no longer exists')
    return { digest: false }
  }

  app.post('/unsubscribe', {
    schema: {
      operationId: 'unsubscribeAlertDigest', tags, security: [],
      summary: 'Stop the digest mails of the user the token names (the mail\'s unsubscribe link; no sign-in)',
      body: UnsubscribeBodySchema,
      response: { 200: AlertMailSchema, ...errorResponses(...BODY_ERRORS, 404, 429, 500, 503) }
    }
  }, async (request) => await unsubscribe(request.body.token))

  const oneClickRoute: FastifyPluginAsyncTypebox = async (oneClick) => {
    oneClick.addContentTypeParser(FORM_TYPES, { parseAs: 'string', bodyLimit: 1024 }, (_request, _body, done) => { done(null, null) })
    oneClick.post('/mail/unsubscribe/:token', {
      schema: {
        operationId: 'unsubscribeAlertDigestOneClick', tags, security: [],
        summary: 'The mail\'s List-Unsubscribe URL: a mail client\'s one-click unsubscribe (RFC 8058), any form body',
        params: UnsubscribeParamsSchema,
        response: { 200: AlertMailSchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 404, 429, 500, 503) }
      }
    }, async (request) => await unsubscribe(request.params.token))
  }
  await app.register(oneClickRoute)

  const ownRoutes: FastifyPluginAsyncTypebox = async (own) => {
    own.addHook('onRequest', app.authenticate)
    const security = [{ bearer: [] }]

    own.get('/mail', {
      config: { apiKeyScope: 'alerts' },
      schema: {
        operationId: 'getAlertMail', tags, security, summary: 'Whether the user gets the alert digest mail',
        response: { 200: AlertMailSchema, ...errorResponses(401, 403, 429, 500, 503) }
      }
    }, async (request) => ({ digest: await digest.digestOn(request.user.id) }))

    own.put('/mail', {
      config: { apiKeyScope: 'alerts' },
      schema: {
        operationId: 'setAlertMail', tags, security, summary: 'Turn the alert digest mail on or off',
        body: AlertMailSchema,
        response: { 200: AlertMailSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429, 500, 503) }
      }
    }, async (request) => {
      await digest.setDigest(request.user.id, request.body.digest)
      return { digest: request.body.digest }
    })
  }
  await app.register(ownRoutes)
}

export default alertMailRoutes
