// Rate limits and the audit log.
import { runGroup } from '../group.ts'

await runGroup([
  'auth/limits.test.ts',
  'auth/limits-hold.test.ts',
  'auth/limits-flood.test.ts',
  'auth/audit-logs.test.ts'
])
