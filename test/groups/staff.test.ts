// The people who run the service: staff roles, the admin API, the admins command and ADMIN_EMAILS.
import { runGroup } from '../group.ts'

await runGroup([
  'staff/ladder.test.ts',
  'staff/users.test.ts',
  'staff/audit.test.ts',
  'staff/promocodes.test.ts',
  'staff/overview.test.ts',
  'staff/admin-emails.test.ts',
  'staff/admins-cli.test.ts'
])
