// Server processes: src/server.ts started as in production, the embedded database owned by one of them, npm run tokens, a first deploy's processes started at once.
import { runGroup } from '../group.ts'

await runGroup([
  'foundation/server.test.ts',
  'foundation/embedded-owner.test.ts',
  'foundation/data-dir.test.ts',
  'deploy/tokens.test.ts',
  'deploy/first-start.test.ts'
])
