// Rate limits and the audit log.
import { runGroup } from '../group.ts'

await runGroup([
  'limits/limits.test.ts',
  'limits/hold.test.ts',
  'limits/flood.test.ts',
  'accounts/audit-logs.test.ts'
])
