// Server processes: src/server.ts started as in production, npm run tokens.
import { runGroup } from '../group.ts'

await runGroup([
  'foundation/server.test.ts',
  'deploy/tokens.test.ts'
])
