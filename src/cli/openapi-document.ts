// The OpenAPI document the app serves at GET /api/v1/openapi.json, taken from the app built in
// process on an embedded in-memory database (no listening server, no network), for the tools that
// read it offline: the typed client's types (client/scripts/generate-types.ts) and the lint
// (npm run lint:openapi, src/cli/openapi.ts). The configuration is fixed and test-like, so the
// document is the same on every machine; `env` adds settings over it (no setting adds or removes an
// operation: the document describes every one, whatever the configuration).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { buildApp } from '../app.ts'
import { loadConfig } from '../config.ts'
import { createDatabase } from '../db/client.ts'
import { migrateDatabase } from '../db/migrate.ts'

export async function openApiDocument (env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pir-openapi-'))
  try {
    const config = loadConfig({
      NODE_ENV: 'test', TLS: 'off', ALLOW_HTTP: 'true', CAPTCHA: 'off', LOG_LEVEL: 'silent', DATA_DIR: dataDir,
      JWT_SECRET: 'client-types-jwt-secret-0123456789abcdef', SESSION_SECRET: 'client-types-session-secret-0123456789ab', WORKERS: '0',
      ...env
    })
    const pglite = new PGlite()
    await migrateDatabase({ pglite })
    const database = await createDatabase({ pglite })
    const app = await buildApp(config, { database })
    try {
      await app.ready()
      // a round trip through JSON: the document as a client downloads it (no functions, no undefined)
      return JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>
    } finally {
      await app.close()
      await database.close()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
