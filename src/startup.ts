// What a server process does once it listens: in development, import the demo dataset into an empty
// database (in the background, so the server answers at once; profiles appear when it is done).
import type { FastifyInstance } from 'fastify'
import type { Config } from './config.ts'
import { importDemoDataIfEmpty } from './services/demo-import.ts'

export function afterListen (app: FastifyInstance, config: Config): void {
  if (!config.demoData) return
  importDemoDataIfEmpty(app.database, app.log).catch((err: Error) => {
    app.log.error({ err }, 'demo data import failed')
  })
}
