// The account (sessions, deletion, pre-hijack), billing, recovery, the Google sign-in peer.
import { runGroup } from '../group.ts'

await runGroup([
  'account/ip-prefix.test.ts',
  'account/sessions.test.ts',
  'account/delete.test.ts',
  'account/pre-hijack.test.ts',
  'billing/checkout.test.ts',
  'billing/entitlement.test.ts',
  'billing/promocode.test.ts',
  'billing/webhook.test.ts',
  'recovery/recovery.test.ts',
  'idp/idp.test.ts'
])
