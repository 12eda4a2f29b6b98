// The dashboard in Chromium: Google sign-in, recovery, confirmation, passkeys.
import { runGroup } from '../group.ts'

await runGroup([
  'dashboard/google.test.ts',
  'dashboard/recovery.test.ts',
  'dashboard/confirm.test.ts',
  'dashboard/passkeys.test.ts'
])
