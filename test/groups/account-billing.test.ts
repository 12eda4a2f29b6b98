// The account (sessions, deletion, pre-hijack, the security log and its notices), billing, recovery, the Google sign-in peer, the alert digest mail.
import { runGroup } from '../group.ts'

await runGroup([
  'sessions/ip-prefix.test.ts',
  'sessions/control.test.ts',
  'accounts/delete.test.ts',
  'accounts/audit-trail.test.ts',
  'accounts/reauthenticate.test.ts',
  'accounts/pre-hijack.test.ts',
  'billing/checkout.test.ts',
  'billing/entitlement.test.ts',
  'billing/promocode.test.ts',
  'billing/webhook.test.ts',
  'accounts/recovery.test.ts',
  'accounts/idp.test.ts',
  'accounts/security-events.test.ts',
  'accounts/notices.test.ts',
  'alerts/digest.test.ts'
])
