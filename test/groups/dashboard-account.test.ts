// The dashboard in Chromium: the account page (its cards for programs too, the security log), billing,
// and the staff console.
import { runGroup } from '../group.ts'

await runGroup([
  'dashboard/account.test.ts',
  'dashboard/billing.test.ts',
  'dashboard/programs.test.ts',
  'dashboard/security-log.test.ts',
  'dashboard/admin-console.test.ts'
])
