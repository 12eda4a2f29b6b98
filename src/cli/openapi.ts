// node --import tsx src/cli/openapi.ts [--full] FILE: writes the OpenAPI document the app serves to
// FILE (src/cli/openapi-document.ts), without a listener or a database of its own. --full sets the
// optional services (ingest, billing) as a deployment that runs them does; the document describes
// every operation either way (test/openapi/document.test.ts), and npm run lint:openapi reads this
// one (docs/decisions.md, OpenAPI document for generators).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { openApiDocument } from './openapi-document.ts'

const args = process.argv.slice(2)
const file = args.find((a) => !a.startsWith('--'))
if (!file) {
  console.error('usage: node --import tsx src/cli/openapi.ts [--full] FILE')
  process.exit(2)
}
// placeholders: nothing is called with them
const FULL = {
  INGEST_TOKEN: 'openapi-document-ingest-token-0123456789',
  STRIPE_SECRET_KEY: 'sk_test_openapi',
  STRIPE_WEBHOOK_SECRET: 'whsec_openapi',
  STRIPE_PRICE_ID: 'price_openapi'
}
const doc = await openApiDocument(args.includes('--full') ? FULL : {})
mkdirSync(dirname(file), { recursive: true })
writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`)
console.log(`wrote ${file}`)
