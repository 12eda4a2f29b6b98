// The database settings: all that the migration command reads, and the part of every other
// configuration that says which database to open.
import { resolve } from 'node:path'
import { Type, type Static } from '@sinclair/typebox'
import { EnvSchema } from '../../schemas/env.ts'
import { checkUrl } from './well-formed.ts'

/** DATABASE_URL's word for the embedded database (PGlite in DATA_DIR/pglite), chosen on purpose */
export const EMBEDDED = 'embedded'

export const DatabaseEnvSchema = Type.Pick(EnvSchema, ['NODE_ENV', 'DATA_DIR', 'DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_PREPARE'])

export interface DatabaseConfig {
  env: Static<typeof DatabaseEnvSchema>['NODE_ENV']
  production: boolean
  dataDir: string
  /** a PostgreSQL URL, or empty for the embedded database */
  databaseUrl: string
  /**
   * the database itself, for what a pooled connection cannot carry (LISTEN, the migrations' session
   * lock): DATABASE_DIRECT_URL when DATABASE_URL names a pooler, else DATABASE_URL (empty: embedded)
   */
  databaseDirectUrl: string
  /** PostgreSQL: statements with parameters prepared once per connection (off behind a pooler that cannot keep them) */
  databasePrepare: boolean
}

// postgres.js decodes the user and password, and a stray % would throw a stack trace at connect
function decodable (url: string): boolean {
  try {
    const u = new URL(url)
    decodeURIComponent(u.username)
    decodeURIComponent(u.password)
    return true
  } catch {
    return false
  }
}

/**
 * Which database, and what is wrong with the choice. Production runs on PostgreSQL: an unset
 * DATABASE_URL there is a forgotten setting (the embedded database holds one process's data on one
 * disk and does not scale out), so the embedded one must be asked for by name.
 */
export function databaseSettings (e: Static<typeof DatabaseEnvSchema>, problems: string[]): DatabaseConfig {
  const production = e.NODE_ENV === 'production'
  if (e.DATABASE_URL && e.DATABASE_URL !== EMBEDDED) {
    const before = problems.length
    checkUrl('DATABASE_URL', e.DATABASE_URL, ['postgres:', 'postgresql:'], problems, `or ${EMBEDDED}`)
    if (problems.length === before && !decodable(e.DATABASE_URL)) {
      problems.push('DATABASE_URL must percent-encode its user and password (% as %25, @ as %40, / as %2F, # as %23)')
    }
  }
  if (e.DATABASE_DIRECT_URL) {
    const before = problems.length
    checkUrl('DATABASE_DIRECT_URL', e.DATABASE_DIRECT_URL, ['postgres:', 'postgresql:'], problems)
    if (problems.length === before && !decodable(e.DATABASE_DIRECT_URL)) {
      problems.push('DATABASE_DIRECT_URL must percent-encode its user and password (% as %25, @ as %40, / as %2F, # as %23)')
    }
    if (!e.DATABASE_URL || e.DATABASE_URL === EMBEDDED) problems.push('DATABASE_DIRECT_URL is for PostgreSQL behind a pooler: set DATABASE_URL to the pooler as well')
  }
  if (production && !e.DATABASE_URL) {
    problems.push(`DATABASE_URL must be set in production (a PostgreSQL URL, or ${EMBEDDED} for the embedded database on purpose)`)
  }
  return {
    env: e.NODE_ENV,
    production,
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL === EMBEDDED ? '' : e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_URL === EMBEDDED ? '' : e.DATABASE_DIRECT_URL || e.DATABASE_URL,
    databasePrepare: e.DATABASE_PREPARE === 'on'
  }
}
