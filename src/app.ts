// buildApp: the table of contents of the service. Every plugin and route module is registered here,
// explicitly and in order.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './config.ts'
import type { Database } from './db/client.ts'
import type { MailService } from './services/accounts/mail.ts'
import { genReqId, loggerOptions, requestLogger, RequestLines } from './logger.ts'
import { schemaController } from './schema-compilers.ts'
import { createMetrics } from './services/operability/metrics.ts'

import lifecyclePlugin from './plugins/lifecycle.ts'
import requestIdPlugin from './plugins/request-id.ts'
import dbPlugin from './plugins/db.ts'
import errorsPlugin, { clientErrorHandler, frameworkErrors } from './plugins/errors.ts'
import refusalLogPlugin from './plugins/refusal-log.ts'
import bodyLimitsPlugin from './plugins/body-limits.ts'
import securityPlugin from './plugins/security.ts'
import eventsPlugin from './plugins/events.ts'
import servicesPlugin from './plugins/services.ts'
import sessionsPlugin from './plugins/sessions.ts'
import accountChangesPlugin from './plugins/account-changes.ts'
import sessionCookiePlugin from './plugins/session-cookie.ts'
import jwtPlugin from './plugins/jwt.ts'
import originCheckPlugin from './plugins/origin-check.ts'
import rateLimitPlugin from './plugins/rate-limit.ts'
import authFailuresPlugin from './plugins/auth-failures.ts'
import apiKeysPlugin from './plugins/api-keys.ts'
import queuePlugin from './plugins/queue.ts'
import staticPlugin from './plugins/static.ts'
import ssePlugin from './plugins/sse.ts'
import metricsPlugin from './plugins/metrics.ts'
import openApiPlugin from './plugins/openapi.ts'
import freshProofPlugin from './plugins/fresh-proof.ts'
import idempotencyPlugin from './plugins/idempotency.ts'
import staffPlugin from './plugins/staff.ts'

import healthRoutes from './routes/operability/health.ts'
import publicAuthRoutes from './routes/accounts/public.ts'
import refreshRoutes from './routes/sessions/refresh.ts'
import protectedAuthRoutes from './routes/accounts/protected.ts'
import recoveryRoutes from './routes/accounts/recovery.ts'
import idpRoutes from './routes/accounts/idp.ts'
import sessionRoutes from './routes/sessions/control.ts'
import accountRoutes from './routes/accounts/account.ts'
import reauthenticateRoutes from './routes/accounts/reauthenticate.ts'
import googleNonceRoutes from './routes/accounts/google-nonce.ts'
import reportRoutes from './routes/reports/index.ts'
import ingestRoutes from './routes/ingest/index.ts'
import profileRoutes from './routes/profiles/index.ts'
import sseRoutes from './routes/streams/index.ts'
import alertStreamRoutes from './routes/streams/alerts.ts'
import alertMailRoutes from './routes/alerts/mail.ts'
import billingRoutes from './routes/billing/index.ts'
import promocodeRoutes from './routes/billing/promocode.ts'
import clientConfigRoutes from './routes/dashboard/client-config.ts'
import reportExportRoutes from './routes/reports/export.ts'
import linkPageRoutes from './routes/dashboard/link-pages.ts'
import imageRoutes from './routes/images/index.ts'
import webhookRoutes from './routes/webhooks/index.ts'
import watchRoutes from './routes/watches/index.ts'
import alertRoutes from './routes/alerts/index.ts'
import apiKeyRoutes from './routes/api-keys/index.ts'
import passkeyRoutes from './routes/passkeys/manage.ts'
import passkeySigninRoutes from './routes/passkeys/signin.ts'
import totpRoutes from './routes/mfa/totp.ts'
import mfaVerifyRoutes from './routes/mfa/verify.ts'
import adminUserRoutes from './routes/admin/users.ts'
import adminAuditRoutes from './routes/admin/audit.ts'
import adminPromocodeRoutes from './routes/admin/promocodes.ts'
import adminOverviewRoutes from './routes/admin/overview.ts'
import adminUserActionRoutes from './routes/admin/user-actions.ts'
import securityLogRoutes from './routes/accounts/security-log.ts'

export const API_PREFIX = '/api/v1'

export interface AppDeps {
  /** an open, migrated database (tests, CLIs); otherwise one is opened from config */
  database?: Database
  /** the clock, in ms since the epoch (tests move it) */
  now?: () => number
  mail?: MailService
  /** extra Fastify options (the server passes https/http2 here) */
  fastify?: Partial<FastifyServerOptions> & Record<string, unknown>
}

export async function buildApp (config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel),
    trustProxy: config.trustProxy.length ? config.trustProxy : false,
    bodyLimit: 1024 * 1024,
    // Fastify gives each plugin 10 s to start; opening the embedded database (PGlite compiles its
    // WebAssembly, then migrates) can take longer than that on a loaded 2-core machine, and the server
    // would refuse to start. A database that cannot be reached fails sooner, by its own connect timeout.
    pluginTimeout: 120_000,
    // ids from genReqId: a safe incoming X-Request-ID is kept, anything else replaced (src/logger.ts)
    requestIdHeader: false,
    genReqId,
    // a request's logger is made when it first writes a line (src/logger.ts)
    childLoggerFactory: requestLogger,
    // the completed-request line names the user (and the API key) a request acted as (src/logger.ts)
    logController: new RequestLines(),
    // Fastify's own early errors (bad URL, unparsable HTTP/1.1) in the GeneralError shape too
    frameworkErrors,
    clientErrorHandler,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } },
    // each schema compiled once per process, not once per route and app (src/schema-compilers.ts)
    schemaController,
    // HTTP/2: on close, every session gets a GOAWAY (Node 20 sends none; Fastify does with `true`).
    // Otherwise a client whose SSE stream just ended reconnects on its open session, gets 503 and
    // gives up instead of resuming elsewhere, and close waits for idle sessions to time out (72 s).
    forceCloseConnections: deps.fastify?.http2 === true ? true : 'idle',
    // A request that arrives while the app closes is served: the database and the services stay up
    // until every connection has ended (src/plugins/lifecycle.ts ends each with its answer), and
    // Fastify's own 503 for it has a body outside the GeneralError shape.
    return503OnClosing: false,
    ...deps.fastify
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Prometheus metrics only when METRICS_PORT is set (served by their own listener, src/startup.ts)
  const metrics = config.metricsPort !== null ? createMetrics() : null

  // cross-cutting plugins
  await app.register(lifecyclePlugin)
  await app.register(requestIdPlugin)
  await app.register(errorsPlugin)
  // a refused authorization and a refused limit: a log line each (src/plugins/refusal-log.ts)
  await app.register(refusalLogPlugin)
  // a body over the limit: 413 before `100 Continue`, and a lingering close (src/plugins/body-limits.ts)
  await app.register(bodyLimitsPlugin)
  await app.register(dbPlugin, { database: deps.database, url: config.databaseUrl, directUrl: config.databaseDirectUrl, dataDir: config.dataDir, prepare: config.databasePrepare })
  await app.register(securityPlugin, {
    tls: config.tls.enabled,
    allowHttp: config.allowHttp,
    corsOrigins: config.corsOrigins,
    apiPrefix: API_PREFIX,
    documentPrefixes: [`${API_PREFIX}/docs`],
    googleSignIn: config.google.clientIds.length > 0
  })
  await app.register(eventsPlugin, { url: config.eventsUrl })
  await app.register(sessionsPlugin, {
    idleSeconds: config.session.idleTtl, absoluteSeconds: config.session.absoluteTtl, jwtTtlSeconds: config.jwt.ttl, reconcileS: config.sessionReconcileS, now: deps.now
  })
  await app.register(accountChangesPlugin)
  // before the queue, so that on close the streams end first, not after the workers stop
  await app.register(ssePlugin, {
    heartbeatS: config.sseHeartbeatS,
    maxStreamsPerUser: config.sseMaxStreamsPerUser,
    reconcileS: config.sessionReconcileS,
    deletionRetentionS: config.jwt.ttl
  })
  await app.register(queuePlugin, { ...config.queue, workers: config.workers, webhooks: config.webhooks, alerts: config.alerts, now: deps.now, observeJob: metrics?.observeJob })
  await app.register(metricsPlugin, { metrics })
  await app.register(servicesPlugin, { config, apiPrefix: API_PREFIX, now: deps.now, mail: deps.mail })
  // authentication: the session cookie, Bearer JWTs, and the Origin check of cookie calls
  await app.register(sessionCookiePlugin, { session: config.session, allowHttp: config.allowHttp })
  await app.register(jwtPlugin, config.jwt)
  await app.register(originCheckPlugin, { allowedOrigins: [new URL(config.publicUrl).origin, ...config.corsOrigins], warnLocalMismatch: !config.production })
  await app.register(rateLimitPlugin, { limits: config.rateLimits, redisUrl: config.redisUrl })
  await app.register(authFailuresPlugin, { limits: config.rateLimits })
  // the route flags (src/plugins/route-config.ts): each adds its hooks to the routes that ask, as they are registered
  await app.register(freshProofPlugin, { maxAgeS: config.stepUpMaxAgeS, now: deps.now })
  await app.register(idempotencyPlugin, { now: deps.now })
  // the /admin routes: a staff role, a second factor, and a key only for reads (after fresh-proof: its check runs first)
  await app.register(staffPlugin)
  // API keys on Bearer requests: their view, their own budget and the scope each route allows
  await app.register(apiKeysPlugin)
  // before the routes: its onRoute hook collects every route's schema
  await app.register(openApiPlugin, { prefix: API_PREFIX, version: '1.0.0', publicUrl: config.publicUrl })

  // routes
  await app.register(async (api) => {
    await api.register(healthRoutes)
    await api.register(publicAuthRoutes, { prefix: '/auth', config })
    await api.register(refreshRoutes, { prefix: '/auth', config })
    await api.register(recoveryRoutes, { prefix: '/auth', config })
    await api.register(idpRoutes, { prefix: '/auth' })
    await api.register(protectedAuthRoutes, { prefix: '/auth' })
    await api.register(sessionRoutes, { prefix: '/auth' })
    await api.register(accountRoutes, { prefix: '/auth', config })
    await api.register(reauthenticateRoutes, { prefix: '/auth', config })
    await api.register(googleNonceRoutes, { prefix: '/auth' })
    await api.register(totpRoutes, { prefix: '/auth', config })
    await api.register(mfaVerifyRoutes, { prefix: '/auth' })
    // the account's security log and its notice setting
    await api.register(securityLogRoutes, { prefix: '/auth' })
    await api.register(apiKeyRoutes, { prefix: '/auth' })
    await api.register(passkeyRoutes, { prefix: '/auth' })
    await api.register(passkeySigninRoutes, { prefix: '/auth', config })
    await api.register(reportRoutes, { prefix: '/report' })
    await api.register(reportExportRoutes, { prefix: '/report' })
    await api.register(ingestRoutes, { prefix: '/ingest', config })
    await api.register(profileRoutes, { prefix: '/profiles' })
    await api.register(imageRoutes, { prefix: '/images' })
    await api.register(webhookRoutes, { prefix: '/webhooks' })
    // POST and DELETE /report/{id}/watch, GET /watches
    await api.register(watchRoutes)
    await api.register(alertRoutes, { prefix: '/alerts' })
    await api.register(sseRoutes, { prefix: '/sse' })
    await api.register(alertStreamRoutes, { prefix: '/sse' })
    await api.register(alertMailRoutes, { prefix: '/alerts' })
    await api.register(billingRoutes, { prefix: '/billing' })
    // promo codes work without Stripe: outside the billing scope that answers 503 when it is not configured
    await api.register(promocodeRoutes, { prefix: '/billing', config })
    await api.register(clientConfigRoutes, { config })
    // the staff's API (docs/operations.md, Support): config.staff on each route (src/plugins/staff.ts)
    await api.register(adminUserRoutes, { prefix: '/admin' })
    await api.register(adminAuditRoutes, { prefix: '/admin' })
    await api.register(adminPromocodeRoutes, { prefix: '/admin' })
    await api.register(adminOverviewRoutes, { prefix: '/admin' })
    // staff: disable, enable, credits, end sessions, remove factors, send a link
    await api.register(adminUserActionRoutes, { prefix: '/admin' })
  }, { prefix: API_PREFIX })

  // the report dashboard (public/) at `/`
  await app.register(staticPlugin)
  // the pages the mailed confirmation and recovery links open
  await app.register(linkPageRoutes)

  return app
}
