// The dashboard in Chromium: the account page and billing.
import { runGroup } from '../group.ts'

await runGroup([
  'dashboard/account.test.ts',
  'dashboard/billing.test.ts'
])
