// What a route declares in its `config` for the plugins that act on it. Each of these plugins adds its
// hooks to the routes that ask for them when they are registered (an onRoute hook), so a route that
// asks for nothing pays for nothing.
// - apiKeyScope: an API key with this scope may call the route (docs/integration.md, Keys and
//   scopes); a route without it refuses every API key with 403.
// - freshProof: the session must have proved its owner within STEP_UP_MAX_AGE_S (403 re-authentication
//   required otherwise; POST /auth/reauthenticate renews the proof).
// - beforeSecondFactor: a session at level 1 (its account has a second factor it has not proved yet)
//   may call the route: POST /auth/mfa/verify, POST /auth/signout and GET /auth/info. Every other route
//   answers such a session 403 second factor required (src/plugins/jwt.ts;
//   docs/decisions/accounts.md, Second factors).
// - staff: 'support' or 'admin', the least staff role that may call the route; a staff session must be
//   at level 2, and an API key passes only on a GET naming apiKeyScope 'admin:read' (src/plugins/staff.ts).
// - idempotent: an `Idempotency-Key` header makes a retry replay the first answer.
// - sessionCookie: the answer may set or clear the session cookie; no plugin acts on it, the OpenAPI
//   document lists Set-Cookie on the route's answers (docs/decisions/programs.md, OpenAPI document
//   for generators).

import type { ApiKeyScope } from '../../schemas/api-keys.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    apiKeyScope?: ApiKeyScope
    beforeSecondFactor?: boolean
    freshProof?: boolean
    idempotent?: boolean
    sessionCookie?: boolean
    staff?: 'support' | 'admin'
  }
}
