// The public half of /auth: sign-in, sign-up, confirmation; refresh is in ../sessions/refresh.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { BODY_ERRORS, errorResponses, FormResultSchema, PARAM_ERRORS, SuccessSchema } from '../../../schemas/common.ts'
import { HashParamsSchema, SigninBodySchema, SignupBodySchema } from '../../../schemas/auth.ts'
import { notFound } from '../../errors.ts'
import { normalizeEmail, requestMeta } from './normalize.ts'
import { startSession } from '../sessions/start.ts'
import { MESSAGES } from '../../services/accounts/index.ts'
import type { Config } from '../../config.ts'
import { clientOf } from '../../plugins/rate-limit.ts'
import { limitRefused } from '../../plugins/refusal-log.ts'

const formResponses = { 200: FormResultSchema, ...errorResponses(...BODY_ERRORS, 429, 500, 503) }
const MINUTE = 60_000

const publicAuthRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const { accounts, mfa, passwordProof } = app.services
  const limits = config.rateLimits
  // sign-in starts a session (src/plugins/session-cookie.ts)
  await app.register(app.sessionCookie)

  const signinPerIp = app.limiter({ name: 'signin-ip', max: limits.signinIp, timeWindow: MINUTE, key: clientOf })
  const signinPerEmail = app.limiter({
    name: 'signin-email', max: limits.signinEmail, timeWindow: 15 * MINUTE, key: (r) => (r.body as { email: string }).email, keyKind: 'email'
  })
  const signupPerIp = app.limiter({ name: 'signup-ip', max: limits.signupIp, timeWindow: 60 * MINUTE, key: clientOf })

  app.post('/signin', {
    schema: { operationId: 'signIn', security: [], tags: ['auth'], summary: 'Sign in with e-mail and password', body: SigninBodySchema, response: formResponses },
    config: { form: true, sessionCookie: true },
    onRequest: signinPerIp,
    preValidation: normalizeEmail,
    preHandler: signinPerEmail
  }, async (request, reply) => {
    const { email, password, token, remember } = request.body
    const outcome = await accounts.signin(email, password, requestMeta(request))
    if (!outcome.ok) {
      if ('retryAfter' in outcome) {
        reply.header('retry-after', String(outcome.retryAfter))
        throw limitRefused('signin-backoff', 'email')
      }
      return { status: 'error' as const, fieldError: outcome.fieldError }
    }
    // an account with a second factor starts at level 1 (docs/decisions/accounts.md, Second
    // factors)
    const aal = await mfa.signinLevel(outcome.userId)
    const user = await startSession(request, outcome.userId, { remember, method: 'password', credentialVersion: outcome.credentialVersion, aal })
    if (!user) {
      // the password it proved was changed meanwhile: it is no longer the password
      await accounts.signinRefused(outcome.userId, requestMeta(request))
      return { status: 'error' as const, fieldError: { field: 'password' as const, message: MESSAGES.wrongCredentials } }
    }
    const answer = aal === undefined ? { status: 'success' as const } : { status: 'success' as const, mfaRequired: true }
    return token === true ? { ...answer, token: app.issueToken(user) } : answer
  })

  app.post('/signup', {
    schema: { operationId: 'signUp', security: [], tags: ['auth'], summary: 'Create an account (no sign-in)', body: SignupBodySchema, response: formResponses },
    config: { form: true },
    onRequest: signupPerIp,
    preValidation: normalizeEmail
  }, async (request) => {
    const b = request.body
    return await accounts.signup({
      email: b.email,
      password: b.password,
      captchaToken: b.token,
      promocode: b.promocode,
      acquisitionCode: b.acquisition_code
    }, requestMeta(request))
  })

  app.post('/confirm/:hash', {
    schema: {
      operationId: 'confirmAccount', security: [],
      tags: ['auth'],
      summary: 'Confirm the account from the e-mailed link',
      params: HashParamsSchema,
      response: { 200: SuccessSchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 404, 429, 500, 503) }
    }
  }, async (request) => {
    if (!await accounts.confirm(request.params.hash, requestMeta(request))) throw notFound('this link is invalid or has expired')
    // Opened in a browser signed in to the account with its password: that password is proven
    // (docs/decisions/accounts.md, Account control). The session cookie is read by this scope's
    // @fastify/session.
    if (request.session.userId) await passwordProof.confirmedInSession(request.params.hash, request.session.sessionId)
    return { status: 'success' as const }
  })
}

export default publicAuthRoutes
