// The dashboard in Chromium: the account page (its cards for programs too) and billing.
import { runGroup } from '../group.ts'

await runGroup([
  'dashboard/account.test.ts',
  'dashboard/billing.test.ts',
  'dashboard/programs.test.ts'
])
