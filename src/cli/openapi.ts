// node --import tsx src/cli/openapi.ts [--full] FILE: writes the OpenAPI document the app serves to
// FILE (src/cli/openapi-document.ts), without a listener or a database of its own. --full turns on
// the routes that exist only when configured (ingest, billing), so that a lint sees every operation:
// npm run lint:openapi (docs/decisions.md, OpenAPI document for generators).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { openApiDocument } from './openapi-document.ts'

const args = process.argv.slice(2)
const file = args.find((a) => !a.startsWith('--'))
if (!file) {
  console.error('usage: node --import tsx src/cli/openapi.ts [--full] FILE')
  process.exit(2)
}
// placeholders: nothing is called with them, they only switch the optional routes on
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
