// A private PgBouncer in transaction mode in front of the benchmark's PostgreSQL (.ci/pgbouncer, as
// the tests run behind one): for scenarios that start more instances than the server has
// connections for each to hold its own pool (docs/operations.md, Behind PgBouncer). Stopped, and its
// folder removed, when the scenario ends.
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './processes.ts'
import type { ScenarioContext } from './scenario.ts'
import { settings } from './settings.ts'

/** the service's environment to reach `databaseUrl` through a new pooler: pooled statements, LISTEN and migrations direct */
export function poolerFor (ctx: ScenarioContext, databaseUrl: string): Record<string, string> {
  // its own folder, which the script hands to the user PgBouncer runs as
  const dir = mkdtempSync(join(tmpdir(), 'pir-bench-pgbouncer-'))
  const script = join(ROOT, '.ci', 'pgbouncer')
  const url = new URL(String(execFileSync(script, ['start', dir, settings.adminUrl])).trim())
  ctx.defer(() => { execFileSync(script, ['stop', dir]) })
  url.pathname = new URL(databaseUrl).pathname
  // PgBouncer 1.18 (Debian 12) keeps no prepared statement across transactions
  return { DATABASE_URL: url.toString(), DATABASE_DIRECT_URL: databaseUrl, DATABASE_PREPARE: 'off' }
}
