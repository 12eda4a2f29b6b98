// Sign-up, sign-in, confirmation mail, sign-in under a flood, passkeys.
import { runGroup } from '../group.ts'

await runGroup([
  'accounts/signup.test.ts',
  'accounts/signin.test.ts',
  'accounts/confirm-mail.test.ts',
  'accounts/signin-flood.test.ts',
  'passkeys/passkeys.test.ts',
  'passkeys/levels.test.ts'
])
