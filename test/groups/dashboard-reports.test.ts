// The dashboard in Chromium: the report page, the dashboard, its states, watches and alerts.
import { runGroup } from '../group.ts'

await runGroup([
  'dashboard/report-page.test.ts',
  'dashboard/dashboard.test.ts',
  'dashboard/states.test.ts',
  'dashboard/alerts.test.ts'
])
