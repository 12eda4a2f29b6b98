// The OpenAPI documents the app serves, GET /api/v1/openapi.json (3.1, what generators read) and
// GET /api/v1/openapi-3.2.json, taken from the app built in process on an embedded in-memory database
// (no listening server, no network) by requesting them, for the tools that read them offline: the
// typed client's types (client/scripts/generate-types.ts), the lint (npm run lint:openapi) and the
// generator check (.ci/generators), both through src/cli/openapi.ts. The configuration is fixed and
// test-like, so a document is the same on every machine; `env` adds settings over it (no setting adds
// or removes an operation: the documents describe every one, whatever the configuration).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../app.ts'
import { loadConfig } from '../config.ts'
import { createDatabase } from '../db/client.ts'
import { migrateDatabase } from '../db/migrate.ts'
import { openPglite } from '../db/pglite.ts'

type Json = Record<string, unknown>

/** the document served at /api/v1/openapi.json (OpenAPI 3.1) */
export async function openApiDocument (env: Record<string, string> = {}): Promise<Json> {
  return (await openApiDocuments(env)).openapi31
}

/** both documents the app serves: 3.1 (/api/v1/openapi.json) and 3.2 (/api/v1/openapi-3.2.json) */
export async function openApiDocuments (env: Record<string, string> = {}): Promise<{ openapi31: Json, openapi32: Json }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pir-openapi-'))
  try {
    const config = loadConfig({
      NODE_ENV: 'test', TLS: 'off', ALLOW_HTTP: 'true', CAPTCHA: 'off', LOG_LEVEL: 'silent', DATA_DIR: dataDir,
      JWT_SECRET: 'client-types-jwt-secret-0123456789abcdef', SESSION_SECRET: 'client-types-session-secret-0123456789ab', WORKERS: '0',
      ...env
    })
    const pglite = await openPglite()
    await migrateDatabase({ pglite })
    const database = await createDatabase({ pglite })
    const app = await buildApp(config, { database })
    try {
      await app.ready()
      // the documents as a client downloads them
      const get = async (url: string) => {
        const res = await app.inject({ url })
        if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode}: ${res.body.slice(0, 500)}`)
        return res.json() as Json
      }
      return { openapi31: await get('/api/v1/openapi.json'), openapi32: await get('/api/v1/openapi-3.2.json') }
    } finally {
      await app.close()
      await database.close()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
