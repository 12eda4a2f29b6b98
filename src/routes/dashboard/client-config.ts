// GET /client-config (public): the deployment facts the dashboard shapes itself by (whether to offer
// Google sign-in and with which client id, whether to offer subscriptions, where a development
// server's mails land, whether it is a development server at all). The same for everyone and fixed
// for the process's life, so browsers and proxies may keep it a little; not long, so a redeploy with
// other settings shows soon.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../../schemas/common.ts'
import { ClientConfigSchema, type ClientConfig } from '../../../schemas/client-config.ts'
import type { Config } from '../../config.ts'

export const CLIENT_CONFIG_MAX_AGE_S = 300

const clientConfigRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const body: ClientConfig = {
    googleClientId: config.google.clientIds[0] ?? null,
    billing: app.services.billing.configured,
    // the outbox is used whenever SMTP_URL is empty, which production refuses; the path is a fact
    // about the server's disk that only its developer should see
    devOutbox: !config.production && !config.mail.smtpUrl ? config.mail.outboxDir : null,
    development: !config.production
  }

  app.get('/client-config', {
    schema: {
      operationId: 'getClientConfig', security: [],
      tags: ['meta'],
      summary: 'What the dashboard needs to know about this deployment (public, cacheable for a few minutes)',
      response: { 200: ClientConfigSchema, ...errorResponses(429, 500, 503) }
    }
  }, async (_request, reply) => {
    reply.header('cache-control', `public, max-age=${CLIENT_CONFIG_MAX_AGE_S}`)
    return body
  })
}

export default clientConfigRoutes
