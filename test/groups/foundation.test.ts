// The foundation: configuration, HTTP, migrations, request limits, logging and the report engine.
import { runGroup } from '../group.ts'

await runGroup([
  'foundation/groups.test.ts',
  'foundation/runner-errors.test.ts',
  'foundation/config.test.ts',
  'foundation/http.test.ts',
  'foundation/migrate.test.ts',
  'foundation/prepared-statements.test.ts',
  'limits/store.test.ts',
  'foundation/request-logger.test.ts',
  'foundation/body-limits.test.ts',
  'foundation/terminal-logging.test.ts',
  'foundation/view-cache.test.ts',
  'engine/tree.test.ts',
  'engine/diffs.test.ts',
  'engine/friends.test.ts',
  'engine/friend-detail.test.ts',
  'engine/months-and-order.test.ts',
  'engine/properties.test.ts',
  'engine/report-item.test.ts',
  'engine/profile-diffs.test.ts'
])
