// Sign-in tokens, refresh and sign-out, revocation, limits without Redis.
import { runGroup } from '../group.ts'

await runGroup([
  'auth/smoke.test.ts',
  'auth/cookie-signer.test.ts',
  'auth/refresh-signout.test.ts',
  'auth/tokens.test.ts',
  'auth/revocation.test.ts',
  'auth/limits-redis-down.test.ts'
])
