// Sign-up, sign-in, confirmation mail, sign-in under a flood.
import { runGroup } from '../group.ts'

await runGroup([
  'auth/signup.test.ts',
  'auth/signin.test.ts',
  'auth/confirm-mail.test.ts',
  'auth/signin-flood.test.ts'
])
