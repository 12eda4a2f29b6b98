// The people who run the service: staff roles, the admin API (its reads and its actions on an account,
// and their reach across instances), the admins command and ADMIN_EMAILS.
import { runGroup } from '../group.ts'

await runGroup([
  'staff/ladder.test.ts',
  'staff/users.test.ts',
  'staff/audit.test.ts',
  'staff/promocodes.test.ts',
  'staff/overview.test.ts',
  'staff/admin-emails.test.ts',
  'staff/admins-cli.test.ts',
  'staff/user-actions.test.ts',
  'staff/disabled-account.test.ts',
  'scale-out/staff-disable.test.ts'
])
