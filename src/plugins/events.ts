// app.events: how this instance hears what other processes did, and tells them (src/services/events/,
// docs/decisions/reports-and-streams.md, Events through a broker). EVENTS_URL chooses the transport
// at start: empty, PostgreSQL LISTEN/NOTIFY (one LISTEN per channel per instance, fanned out in
// memory); redis://…, Redis for the streams' channels, subscribed to only while a stream here needs
// them.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createEventTransport, type EventTransport } from '../services/events/index.ts'

export type EventBus = EventTransport

declare module 'fastify' {
  interface FastifyInstance { events: EventBus }
}

export interface EventsPluginOptions {
  /** EVENTS_URL: empty for LISTEN/NOTIFY, or a Redis URL */
  url: string
}

async function eventsPlugin (app: FastifyInstance, opts: EventsPluginOptions) {
  const bus = createEventTransport({ url: opts.url, database: app.database, log: app.log })
  app.decorate('events', bus)
  // after preClose, in which the queue's workers finish their jobs and announce their last events
  app.addHook('onClose', async () => { await bus.close() })
}

export default fp(eventsPlugin, { name: 'events', dependencies: ['db'] })
