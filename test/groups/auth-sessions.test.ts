// Sign-in tokens, refresh and sign-out, revocation, credential versions, limits without Redis, second
// factors and the session's level.
import { runGroup } from '../group.ts'

await runGroup([
  'accounts/smoke.test.ts',
  'sessions/cookie-signer.test.ts',
  'sessions/refresh-signout.test.ts',
  'sessions/tokens.test.ts',
  'sessions/revocation.test.ts',
  'sessions/credential-versions.test.ts',
  'limits/redis-down.test.ts',
  'mfa/totp.test.ts',
  'mfa/enrol.test.ts',
  'mfa/levels.test.ts'
])
