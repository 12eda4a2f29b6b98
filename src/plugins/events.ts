// The LISTEN/NOTIFY bus: one LISTEN per channel per instance, fanned out in memory.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

type Handler = (payload: string) => void

export interface EventBus {
  /** handle every NOTIFY on channel; onListen runs on each (re)connect, to catch up on anything missed */
  on: (channel: string, handler: Handler, onListen?: () => void) => Promise<void>
  publish: (channel: string, payload: string) => Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance { events: EventBus }
}

async function eventsPlugin (app: FastifyInstance) {
  const channels = new Map<string, { handlers: Set<Handler>, reconnects: Set<() => void> }>()
  const unlisteners: Array<() => Promise<void>> = []

  const bus: EventBus = {
    async on (channel, handler, onListen) {
      let entry = channels.get(channel)
      if (!entry) {
        const created = { handlers: new Set<Handler>(), reconnects: new Set<() => void>() }
        entry = created
        channels.set(channel, created)
        const unlisten = await app.database.listen(channel, (payload) => {
          for (const h of created.handlers) {
            try { h(payload) } catch (err) { app.log.error({ err, channel }, 'event handler failed') }
          }
        }, () => { for (const r of created.reconnects) r() })
        unlisteners.push(unlisten)
      }
      entry.handlers.add(handler)
      if (onListen) entry.reconnects.add(onListen)
    },
    publish: (channel, payload) => app.database.notify(channel, payload)
  }
  app.decorate('events', bus)
  app.addHook('preClose', async () => {
    await Promise.allSettled(unlisteners.map((u) => u()))
  })
}

export default fp(eventsPlugin, { name: 'events', dependencies: ['db'] })
