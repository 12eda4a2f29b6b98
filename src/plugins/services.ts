// Builds the services behind the routes from config and the database, once, and hands them to the
// routes as app.services. Tests can pass their own clock or mailer.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { createAccountService } from '../services/accounts.ts'
import { createAuditService } from '../services/audit.ts'
import { createBillingService } from '../services/billing.ts'
import { createCaptchaService } from '../services/captcha.ts'
import { createMailService, type MailService } from '../services/mail.ts'
import { createPasswordService } from '../services/passwords.ts'
import { createPromocodeService } from '../services/promocodes.ts'
import { createReportService } from '../services/reports.ts'
import { createRecoveryService } from '../services/recovery.ts'
import { createGoogleAccountService, createGoogleService } from '../services/google.ts'

export interface ServicesOptions {
  config: Config
  now?: () => number
  mail?: MailService
}

function buildServices (app: FastifyInstance, opts: ServicesOptions) {
  const { config, now } = opts
  const database = app.database
  const passwords = createPasswordService(config.argon2)
  const mail = opts.mail ?? createMailService({ ...config.mail, log: app.log })
  const audit = createAuditService({ database })
  const captcha = createCaptchaService(config.captcha)
  const promocodes = createPromocodeService({ db: database.db, now })
  const accounts = createAccountService({
    database, passwords, captcha, mail, audit, promocodes, now,
    publicUrl: config.publicUrl,
    signupFreeReports: config.signupFreeReports
  })
  const reports = createReportService({ database, queue: app.queue.reports, now })
  // The session service is decorated by the auth plugin, registered after this one: resolved at call time.
  const endSessionsOfUser = (userId: string) => app.sessions.endAllOfUser(userId)
  const recovery = createRecoveryService({ database, passwords, mail, audit, endSessionsOfUser, now, publicUrl: config.publicUrl })
  const google = createGoogleService(config.google)
  const googleAccounts = createGoogleAccountService({ database, audit, endSessionsOfUser, now, signupFreeReports: config.signupFreeReports })
  const billing = createBillingService({
    database, now, log: app.log,
    config: config.stripe,
    allowedOrigins: [new URL(config.publicUrl).origin, ...config.corsOrigins],
    defaultReturnUrl: `${config.publicUrl}/`
  })
  return { passwords, mail, audit, captcha, promocodes, accounts, reports, recovery, google, googleAccounts, billing }
}

export type Services = ReturnType<typeof buildServices>

declare module 'fastify' {
  interface FastifyInstance { services: Services }
}

async function servicesPlugin (app: FastifyInstance, opts: ServicesOptions) {
  const services = buildServices(app, opts)
  app.decorate('services', services)
  app.addHook('onClose', async () => { services.mail.close() })
}

export default fp(servicesPlugin, { name: 'services', dependencies: ['db', 'queue'] })
