// Alerts: raised by the alert worker from imported data, exactly and once.
import { runGroup } from '../group.ts'

await runGroup([
  'alerts/raising.test.ts',
  'alerts/webhook.test.ts'
])
