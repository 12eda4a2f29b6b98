// Staff: the admin API's actions on an account, and their reach across instances.
import { runGroup } from '../group.ts'

await runGroup([
  'staff/user-actions.test.ts',
  'scale-out/staff-disable.test.ts'
])
