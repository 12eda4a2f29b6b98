// Ingest over HTTP and from files, the demo data. The memory test first, on a fresh heap.
import { runGroup } from '../group.ts'

await runGroup([
  'ingest/memory.test.ts',
  'ingest/feeds.test.ts',
  'ingest/http.test.ts',
  'ingest/import.test.ts',
  'ingest/demo-data.test.ts',
  'ingest/demo-showcase.test.ts',
  'ingest/demo-next-month.test.ts'
])
