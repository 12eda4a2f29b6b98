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
  /** a JWT already held (from an earlier sign-in or refresh) */
  token?: string
  fetch?: typeof fetch
}

export type SignInResult = paths['/api/v1/auth/signin']['post']['responses'][200]['content']['application/json']

const REFRESH = '/api/v1/auth/token/refresh'

export interface ApiClient {
  /** every operation of the document, typed: api.GET('/api/v1/report/{id}', { params: { path: { id } } }) */
  api: Client<paths>
  /** the JWT sent as `Authorization: Bearer` (undefined before sign-in) */
  readonly token: string | undefined
  setToken (token: string | undefined): void
  /** POST /auth/signin with `token: true`; keeps the JWT on success */
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
  const api = createClient<paths>({ baseUrl: opts.baseUrl, fetch: opts.fetch, credentials: 'include' })
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
      const { data, error, response } = await api.POST('/api/v1/auth/signin', { body: { email, password, remember, token: true } })
      if (!data) throw new ApiError(response.status, error)
      if (data.status === 'success' && data.token) token = data.token
      return data
    },
    async refresh () {
      const { data, error, response } = await api.POST(REFRESH)
      if (!data?.token) throw new ApiError(response.status, error ?? data)
      token = data.token
      return token
    }
  }
}
