// The dashboard in Chromium: Google sign-in, recovery, confirmation, two-step sign-in, passkeys.
import { runGroup } from '../group.ts'

await runGroup([
  'dashboard/google.test.ts',
  'dashboard/recovery.test.ts',
  'dashboard/confirm.test.ts',
  'dashboard/second-factor.test.ts',
  'dashboard/passkeys.test.ts'
])
