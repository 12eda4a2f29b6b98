// Helpers of the rate-limit tests (limits-*.test.ts; not a test file itself).
import type { Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { logCapture } from '../helper.ts'

export const TOO_MANY = { code: 429, message: 'too many requests' }
export const DENIED = { code: 401, message: 'access denied', reason: 'unauthenticated' }
/** high enough that only the limit under test answers 429 */
export const ROOMY = { RATE_LIMIT_SIGNIN_IP: '100000', RATE_LIMIT_SIGNIN_EMAIL: '100000', RATE_LIMIT_GLOBAL: '100000' }

export function limited (t: Test, res: LightMyRequestResponse, what: string) {
  t.equal(res.statusCode, 429, `${what}: 429`)
  t.has(res.json(), TOO_MANY, `${what}: GeneralError`)
  t.match(res.headers['retry-after'], /^[1-9]\d*$/, `${what}: Retry-After in seconds`)
}

export const signinFrom = (app: FastifyInstance, remoteAddress: string, email: string, password = 'wrong password') =>
  app.inject({ method: 'POST', url: '/api/v1/auth/signin', remoteAddress, payload: { email, password } })
export const infoFrom = (app: FastifyInstance, remoteAddress: string, token = 'not-a-jwt') =>
  app.inject({ url: '/api/v1/auth/info', remoteAddress, headers: { authorization: `Bearer ${token}` } })
/** the nth address of 10/8 */
export const ipv4 = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
/** the app's captured log lines that contain `text` */
export const logLines = (app: FastifyInstance, text: string) => (logCapture(app)?.lines ?? []).filter((l) => l.includes(text))

/** sign-in answers: wrong credentials (200 with a field error) and 429s */
export function tally (answers: LightMyRequestResponse[]) {
  const wrong = answers.filter((r) => r.statusCode === 200 && r.json().status === 'error').length
  const tooMany = answers.filter((r) => r.statusCode === 429).length
  return { wrong, tooMany }
}
