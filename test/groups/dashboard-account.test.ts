// The dashboard in Chromium: the account page (its cards for programs too, the security log) and billing.
import { runGroup } from '../group.ts'

await runGroup([
  'dashboard/account.test.ts',
  'dashboard/billing.test.ts',
  'dashboard/programs.test.ts',
  'dashboard/security-log.test.ts'
])
