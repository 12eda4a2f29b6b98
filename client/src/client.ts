// The typed API client: openapi-fetch over the generated `paths`, with the Bearer token kept here and
// sent on every call, sign-in that asks for the token in the body, and refresh from the session cookie.
// A browser sends the cookie itself (credentials: 'include'; the cookie is SameSite=Lax, so only from
// the same site); outside a browser the client keeps the `sid` cookie that sign-in set and sends it
// to refresh only.
import createClient, { type Client } from 'openapi-fetch'
import type { paths } from './schema.d.ts'

export interface ApiClientOptions {
  /** the service's origin, e.g. https://pir.example (the paths carry /api/v1) */
  baseUrl: string
  /**
   * the Bearer token sent on every call: a JWT already held (from an earlier sign-in or refresh), or
   * any other credential the service accepts as `Authorization: Bearer`
   */
  token?: string | undefined
  fetch?: typeof fetch | undefined
}

type SignInAnswer = paths['/api/v1/auth/signin']['post']['responses'][200]['content']['application/json']

/**
 * What signIn gives: `ok` tells success from refusal, and only a success has a token, so a caller
 * must check `ok` before it can use one. A refusal is a wrong credential (answered 200 with the
 * field it concerns) or an error answer (400, 429, ...), with its HTTP status.
 */
export type SignInResult =
  | { ok: true, token: string, isNewUser: boolean }
  | { ok: false, httpStatus: number, message: string, field: NonNullable<SignInAnswer['fieldError']>['field'] | undefined }

const REFRESH = '/api/v1/auth/token/refresh'

export interface ApiClient {
  /** every operation of the document, typed: api.GET('/api/v1/report/{id}', { params: { path: { id } } }) */
  api: Client<paths>
  /** the JWT sent as `Authorization: Bearer` (undefined before sign-in) */
  readonly token: string | undefined
  setToken (token: string | undefined): void
  /** POST /auth/signin with `token: true`; keeps the JWT on success. Throws only when no answer came. */
  signIn (email: string, password: string, remember?: boolean): Promise<SignInResult>
  /** POST /auth/token/refresh with the session cookie; keeps and returns the new JWT */
  refresh (): Promise<string>
}

export class ApiError extends Error {
  readonly status: number
  readonly body: unknown
  constructor (status: number, body: unknown) {
    const message = typeof body === 'object' && body !== null && 'message' in body ? String(body.message) : `HTTP ${status}`
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.body = body
  }
}

export function createApiClient (opts: ApiClientOptions): ApiClient {
  let token = opts.token
  let sessionCookie: string | undefined
  const inBrowser = typeof document !== 'undefined'
  const api = createClient<paths>({ baseUrl: opts.baseUrl, credentials: 'include', ...(opts.fetch ? { fetch: opts.fetch } : {}) })
  api.use({
    onRequest ({ request, schemaPath }) {
      if (schemaPath === REFRESH) {
        if (!inBrowser && sessionCookie) request.headers.set('cookie', sessionCookie)
      } else if (token && !request.headers.has('authorization')) {
        request.headers.set('authorization', `Bearer ${token}`)
      }
      return request
    },
    onResponse ({ response }) {
      // browsers never show Set-Cookie to scripts; Node does
      const sid = inBrowser ? undefined : response.headers.getSetCookie?.().find((c) => c.startsWith('sid='))
      if (sid) sessionCookie = sid.slice(0, sid.indexOf(';') === -1 ? undefined : sid.indexOf(';'))
      return undefined
    }
  })

  return {
    api,
    get token () { return token },
    setToken (t) { token = t },
    async signIn (email, password, remember) {
      const body = remember === undefined ? { email, password, token: true } : { email, password, remember, token: true }
      const { data, error, response } = await api.POST('/api/v1/auth/signin', { body })
      if (!data) {
        const message = typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : `HTTP ${response.status}`
        return { ok: false, httpStatus: response.status, message, field: undefined }
      }
      if (data.status !== 'success' || !data.token) {
        return { ok: false, httpStatus: response.status, message: data.fieldError?.message ?? 'sign-in refused', field: data.fieldError?.field }
      }
      token = data.token
      return { ok: true, token: data.token, isNewUser: data.isNewUser ?? false }
    },
    async refresh () {
      const { data, error, response } = await api.POST(REFRESH)
      if (!data?.token) throw new ApiError(response.status, error ?? data)
      token = data.token
      return token
    }
  }
}
