// The operator's commands as child processes: db:migrate, promo, sessions and factors, each against a
// database of its own (a fresh embedded one per run, or a new PostgreSQL database). Apart from the
// foundation so that the Node 24 smoke pass (.ci/run) can leave them out: .ci/prod-smoke runs the
// same commands on Node 24 from the production tree.
import { runGroup } from '../group.ts'

await runGroup([
  'foundation/cli.test.ts'
])
