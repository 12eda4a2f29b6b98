// Server-Sent Events and several instances on one database.
import { runGroup } from '../group.ts'

await runGroup([
  'streams/hub.test.ts',
  'streams/schemas.test.ts',
  'streams/session-end.test.ts',
  'streams/api.test.ts',
  'streams/reconnect.test.ts',
  'streams/load.test.ts',
  'streams/alerts-stream.test.ts',
  'scale-out/two-instances.test.ts',
  'scale-out/revocation.test.ts',
  'scale-out/views.test.ts',
  'scale-out/alert-streams.test.ts',
  'scale-out/pooler.test.ts',
  'idempotency/concurrency.test.ts'
])
