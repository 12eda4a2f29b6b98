// The fan-out hub on its own, over a real database and the tests' events transport (its LISTEN, or
// the broker of TEST_EVENTS_URL): a stream that arrives while
// events are being written misses none and gets none twice (it subscribes before it reads its
// backlog); a failed fan-out read ends the report's streams so that their clients resume from the
// table; a LISTEN that reconnects reads what it may have missed; a client that stops reading is cut off.
import t from '../tap.ts'
import { freshDatabase, type Tap } from '../helper.ts'
import { testEventsUrl } from '../../src/config.ts'
import { createEventTransport } from '../../src/services/events/index.ts'
import { reports, users } from '../../src/db/schema/index.ts'
import { announce, appendEvent, REPORT_EVENTS_CHANNEL } from '../../src/services/reports/events.ts'
import { createSseHub, eventStore, type EventStore, type SseHub } from '../../src/services/streams/hub.ts'
import { until } from '../peers/wait.ts'
import { parseEvents } from './client.ts'

const database = await freshDatabase(t)
const quiet = { warn: () => {}, info: () => {}, error: () => {} }
const events = createEventTransport({ url: testEventsUrl, database, log: quiet })
t.teardown(() => events.close())
const [owner] = await database.db.insert(users).values({ email: 'hub@example.com' }).returning({ id: users.id })

async function newReport (): Promise<string> {
  const [r] = await database.db.insert(reports).values({ userId: owner.id, profiles: [] }).returning({ id: reports.id })
  return r.id
}

/** write the next status event of a report, as a worker does; announce it unless told not to */
async function write (reportId: string, progress: number, opts: { announce?: boolean } = {}): Promise<number> {
  const seq = await database.db.transaction((tx) =>
    appendEvent(tx, reportId, 'status', { reportId, status: 'generating', progress, stage: 'interests' }))
  if (opts.announce !== false) await announce(events, reportId, [seq])
  return seq
}

/** a stream's output that keeps what it is sent */
function sink (bufferedBytes = () => 0) {
  let text = ''
  let ended = false
  return {
    out: { write: (chunk: string) => { text += chunk }, end: () => { ended = true }, buffered: bufferedBytes },
    ids: () => parseEvents(text).map((e) => e.id ?? ''),
    text: () => text,
    ended: () => ended
  }
}

/** a hub fed by the events transport, as the sse plugin builds it */
async function hubOn (t: Tap, store: EventStore, opts: { maxBufferedBytes?: number } = {}) {
  const warnings: string[] = []
  const hub = createSseHub({
    store,
    log: { warn: (_o, msg) => { warnings.push(msg) } },
    watch: (id) => events.subscribe(REPORT_EVENTS_CHANNEL, id),
    unwatch: (id) => events.unsubscribe(REPORT_EVENTS_CHANNEL, id),
    ...opts
  })
  // the transport keeps its handlers: a closed hub has no streams, and ignores what it is told
  await events.on(REPORT_EVENTS_CHANNEL, hub.notify)
  t.teardown(() => { hub.closeAll() })
  return { hub, warnings }
}
const initial = (reportId: string) => ({ reportId, status: 'draft', progress: 0, stage: null })

/** a stream that has been prepared and started, as the route does */
async function connect (hub: SseHub, reportId: string, lastEventId?: number) {
  const s = sink()
  const prepared = await hub.prepare(reportId, { lastEventId, initial: initial(reportId) })
  if (prepared.noContent) throw new Error('unexpected 204')
  prepared.start(s.out)
  return s
}

t.test('events written while a stream reads its backlog: each exactly once, in order', async (t) => {
  const real = eventStore(database.db)
  for (const when of ['after', 'before'] as const) {
    const id = await newReport()
    await write(id, 10)
    await write(id, 20)
    // the backlog read of a client resuming from 1 is held, either once it has read (the live events
    // come after its snapshot) or before it reads (its snapshot already has them)
    let release!: () => void
    const held = new Promise<void>((resolve) => { release = resolve })
    let reading = false
    const store: EventStore = {
      ...real,
      after: async (reportId, afterSeq) => {
        reading = true
        if (when === 'before') await held
        const rows = await real.after(reportId, afterSeq)
        if (when === 'after') await held
        return rows
      }
    }
    const { hub } = await hubOn(t, store)
    const watcher = await connect(hub, id)
    const resuming = connect(hub, id, 1)
    await until(() => reading, { what: 'the backlog read to start' })
    await write(id, 30)
    await write(id, 40)
    await until(() => watcher.ids().length === 3, { what: `the live events (${when})` })
    release()
    const late = await resuming
    await until(() => late.ids().length === 3, { what: `the resumed stream (${when})` })
    t.same(late.ids(), ['2', '3', '4'], `backlog held ${when} its read: 2 from the table, 3 and 4 live, none twice`)
    t.same(watcher.ids(), ['2', '3', '4'], 'the stream that was there: the current state (2), then 3 and 4')
    await write(id, 50)
    await until(() => late.ids().length === 4 && watcher.ids().length === 4, { what: 'one more live event' })
    t.same(late.ids(), ['2', '3', '4', '5'])
    hub.closeAll()
    t.ok(late.ended() && watcher.ended(), 'closeAll ends every stream')
    t.equal(hub.subscriberCount(), 0)
  }
})

t.test('a failed fan-out read ends the report\'s streams: their clients resume from the table', async (t) => {
  const real = eventStore(database.db)
  let fail = true
  const store: EventStore = {
    ...real,
    range: async (...args) => {
      if (fail) { fail = false; throw new Error('connection lost') }
      return await real.range(...args)
    }
  }
  const { hub, warnings } = await hubOn(t, store)
  const id = await newReport()
  const other = await newReport()
  const a = await connect(hub, id)
  const b = await connect(hub, id)
  const bystander = await connect(hub, other)
  await write(id, 10)
  await until(() => a.ended() && b.ended(), { what: 'the streams to end' })
  t.same(a.ids(), [''], 'they had the draft state, not the event whose read failed')
  t.equal(hub.subscriberCount(), 1, 'only the other report\'s stream is left')
  t.notOk(bystander.ended(), 'another report\'s stream is untouched')
  t.match(warnings, [/fan-out failed/])
  // what their reconnect gets
  const resumed = await connect(hub, id, 0)
  t.same(resumed.ids(), ['1'])
})

t.test('a LISTEN that reconnects: what was announced meanwhile is read, once', async (t) => {
  const { hub } = await hubOn(t, eventStore(database.db))
  const id = await newReport()
  await write(id, 10)
  const s = await connect(hub, id)
  await write(id, 20, { announce: false }) // announced while the LISTEN connection was down
  await write(id, 30, { announce: false })
  hub.relisten()
  await until(() => s.ids().length === 3, { what: 'the missed events' })
  t.same(s.ids(), ['1', '2', '3'])
  await write(id, 40)
  await until(() => s.ids().length === 4, { what: 'the next live event' })
  t.same(s.ids(), ['1', '2', '3', '4'], 'live again, nothing twice')
})

t.test('a client that stops reading is cut off rather than buffered without end', async (t) => {
  let backlog = 0
  const { hub } = await hubOn(t, eventStore(database.db), { maxBufferedBytes: 1000 })
  const id = await newReport()
  const slow = sink(() => backlog)
  const prepared = await hub.prepare(id, { initial: initial(id) })
  if (prepared.noContent) throw new Error('unexpected 204')
  prepared.start(slow.out)
  const fast = await connect(hub, id)
  backlog = 5000 // the slow client's socket is full
  await write(id, 10)
  await until(() => slow.ended(), { what: 'the slow client to be cut off' })
  await until(() => fast.ids().length === 2, { what: 'the other client to get the event' })
  t.notOk(fast.ended(), 'the other client goes on')
  t.equal(hub.subscriberCount(), 1)
})

t.test('a session that ends while its stream is prepared: the stream starts with its end event alone', async (t) => {
  const ended = new Set<string>()
  const hub = createSseHub({ store: eventStore(database.db), sessionEnded: (sid) => ended.has(sid), maxStreamsPerUser: 2 })
  t.teardown(() => hub.closeAll())
  const reportId = await newReport()
  const owner = (sid: string) => ({ userId: 'u1', sid })

  // ended between prepare and start, with the hub told (endSession) or not (only the ended set knows)
  for (const told of [true, false]) {
    const s = sink()
    const prepared = await hub.prepare(reportId, { initial: initial(reportId), owner: owner(`s-${told}`) })
    if (prepared.noContent) throw new Error('unexpected 204')
    ended.add(`s-${told}`)
    if (told) hub.endSession(`s-${told}`)
    prepared.start(s.out, 'retry: 3000\n\n')
    t.equal(s.text(), 'retry: 3000\n\nevent: end\ndata: {"reason":"session-ended"}\n\n', `told: ${told}: the end event, no state`)
    t.ok(s.ended(), `told: ${told}: ended`)
  }
  t.equal(hub.subscriberCount(), 0, 'nothing left subscribed')
  t.notOk(hub.full('u1'), 'the ended streams no longer count against the user')

  // a cancelled stream frees its place too
  const a = await hub.prepare(reportId, { initial: initial(reportId), owner: owner('live') })
  await hub.prepare(reportId, { initial: initial(reportId), owner: owner('live') })
  t.ok(hub.full('u1'), 'two streams: full')
  if (!a.noContent) a.cancel()
  t.notOk(hub.full('u1'), 'one cancelled: room again')
})
