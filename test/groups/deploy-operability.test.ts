// npm start as an operator runs it, the production commands on a build, the container files, the migrations' expand-contract check, health and metrics.
import { runGroup } from '../group.ts'

await runGroup([
  'deploy/npm-start.test.ts',
  'deploy/another-port.test.ts',
  'deploy/container-files.test.ts',
  'deploy/prod-commands.test.ts',
  'deploy/check-migrations.test.ts',
  'operability/health.test.ts',
  'operability/metrics.test.ts',
  'operability/log-leaks.test.ts',
  'operability/refusal-log.test.ts'
])
