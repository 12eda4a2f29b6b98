// The ingest and demo-data CLIs as child processes, the fuzz tests, the OpenAPI document.
import { runGroup } from '../group.ts'

await runGroup([
  'ingest/cli.test.ts',
  'fuzz/ingest.test.ts',
  'fuzz/routes.test.ts',
  'fuzz/id-params.test.ts',
  'openapi/generators.test.ts',
  'openapi/openapi.test.ts',
  'openapi/response-check.test.ts',
  'openapi/contract.test.ts'
])
