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
export async function bareFor (ctx: ScenarioContext, env: Record<string, string> = {}, name = 'bare'): Promise<Child> {
  const bare = await startChild({ name, script: 'bench/servers/bare.ts', logDir: ctx.run.logDir, readyPath: '/health', env })
  ctx.defer(bare.stop)
  return bare
}

let spares = 0

/** a compareHttp side's `another`: one more process of the service with these options, the path on it */
export function anotherService (ctx: ScenarioContext, opts: ServiceOptions, path: string): () => Promise<string> {
  return async () => `${(await serviceFor(ctx, { ...opts, name: `${opts.name}-${++spares}` })).url}${path}`
}

/** a compareHttp side's `another`: one more bare Fastify server, the path on it */
export function anotherBare (ctx: ScenarioContext, path: string, env: Record<string, string> = {}): () => Promise<string> {
  return async () => `${(await bareFor(ctx, env, `bare-${++spares}`)).url}${path}`
}
