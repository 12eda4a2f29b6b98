// Server-Sent Events and several instances on one database.
import { runGroup } from '../group.ts'

await runGroup([
  'sse/sse-hub.test.ts',
  'sse/sse-schemas.test.ts',
  'sse/sse-session-end.test.ts',
  'sse/sse-api.test.ts',
  'sse/sse-reconnect.test.ts',
  'sse/sse-load.test.ts',
  'scale-out/two-instances.test.ts',
  'scale-out/revocation.test.ts',
  'scale-out/views.test.ts'
])
