// node --import tsx src/cli/openapi.ts [--full] FILE [FILE_3_2]: writes the OpenAPI document the app
// serves at /api/v1/openapi.json (3.1) to FILE, and with FILE_3_2 the one at /api/v1/openapi-3.2.json
// to it (src/cli/openapi-document.ts), without a listener or a database of its own. --full sets the
// optional services (ingest, billing) as a deployment that runs them does; the document describes
// every operation either way (test/openapi/document.test.ts). npm run lint:openapi and
// .ci/generators read them (docs/decisions/programs.md, OpenAPI document for generators).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { openApiDocuments } from './openapi-document.ts'

const args = process.argv.slice(2)
const [file, file32] = args.filter((a) => !a.startsWith('--'))
if (!file) {
  console.error('usage: node --import tsx src/cli/openapi.ts [--full] FILE [FILE_3_2]')
  process.exit(2)
}
// placeholders: nothing is called with them
const FULL = {
  INGEST_TOKEN: 'openapi-document-ingest-token-0123456789',
  STRIPE_SECRET_KEY: 'sk_test_openapi',
  STRIPE_WEBHOOK_SECRET: 'whsec_openapi',
  STRIPE_PRICE_ID: 'price_openapi'
}
const docs = await openApiDocuments(args.includes('--full') ? FULL : {})
for (const [path, doc] of [[file, docs.openapi31], [file32, docs.openapi32]] as const) {
  if (path === undefined) continue
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`)
  console.log(`wrote ${path} (OpenAPI ${String(doc.openapi)})`)
}
