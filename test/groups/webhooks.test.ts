// Webhooks: endpoints through the API, deliveries end to end to a real receiver, the outbound rules at
// send time and the transaction an event is written in; watches and alerts through the API.
import { runGroup } from '../group.ts'

await runGroup([
  'webhooks/webhooks-api.test.ts',
  'webhooks/delivery.test.ts',
  'webhooks/outbound-rules.test.ts',
  'watches/watches-api.test.ts',
  'watches/import-lock.test.ts',
  'alerts/alerts-api.test.ts'
])
