// API keys: issuing, listing and revoking them, their scopes, their own rate limit, revocation across instances.
import { runGroup } from '../group.ts'

await runGroup([
  'api-keys/management.test.ts',
  'api-keys/scopes.test.ts',
  'api-keys/limits.test.ts',
  'api-keys/revocation.test.ts',
  'api-keys/cut-off.test.ts'
])
