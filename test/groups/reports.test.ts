// Reports, profiles and their images, the typed client, the journeys of mailed links.
import { runGroup } from '../group.ts'

await runGroup([
  'reports/reports-api.test.ts',
  'reports/friend-detail.test.ts',
  'reports/export.test.ts',
  'reports/report-worker.test.ts',
  'reports/report-errors.test.ts',
  'idempotency/keys.test.ts',
  'profiles/profiles-api.test.ts',
  'images/outbound.test.ts',
  'images/images-api.test.ts',
  'client/client.test.ts',
  'client/webhook.test.ts',
  'client/webhook-types.test.ts',
  'client/integration-doc.test.ts',
  'dashboard/client-config.test.ts',
  'dashboard/mailed-links.test.ts'
])
