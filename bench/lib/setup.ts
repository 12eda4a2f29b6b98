// The start of most HTTP scenarios: a fresh database, the service on it, and the bare Fastify
// baseline, each stopped (or dropped) when the scenario ends.
import { freshDatabase } from './database.ts'
import { startChild, type Child } from './processes.ts'
import type { ScenarioContext } from './scenario.ts'
import { startService, type ServiceOptions } from './service.ts'

export async function databaseFor (ctx: ScenarioContext, name: string) {
  const db = await freshDatabase(name)
  ctx.defer(db.drop)
  return db
}

export async function serviceFor (ctx: ScenarioContext, opts: ServiceOptions): Promise<Child> {
  const app = await startService(ctx.run, opts)
  ctx.defer(app.stop)
  return app
}

/** the bare Fastify server of bench/servers/bare.ts */
export async function bareFor (ctx: ScenarioContext, env: Record<string, string> = {}): Promise<Child> {
  const bare = await startChild({ name: 'bare', script: 'bench/servers/bare.ts', logDir: ctx.run.logDir, readyPath: '/health', env })
  ctx.defer(bare.stop)
  return bare
}
