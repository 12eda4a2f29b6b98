// The stream's events as the OpenAPI document describes them (schemas/sse.ts): the document lists
// every event name with its payload schema under the text/event-stream 200, and what a real stream
// sends validates against those schemas.
import t from '../tap.ts'
import { Value } from '@sinclair/typebox/value'
import { SSE_EVENTS, type SseEventName } from '../../schemas/sse.ts'
import { build, signedInUser } from '../helper.ts'
import { createReport } from '../reports/report-wait.ts'
import { seedReportData } from '../reports/seed.ts'
import { closeApp, listen, parseEvents, rawStream } from './client.ts'

const app = await build(t, { WORKERS: '1' })
await seedReportData(app.db)
const base = await listen(app)
t.teardown(() => closeApp(app))

t.test('the document names the events and their payloads', async (t) => {
  const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json()
  const ok = doc.paths['/api/v1/sse/{reportId}'].get.responses['200']
  const schema = ok.content['text/event-stream'].schema
  t.same(Object.keys(schema['x-events']).sort(), ['done', 'end', 'status'])
  t.match(schema['x-events'].status, { type: 'object', required: ['reportId', 'status', 'progress', 'stage'] })
  t.match(schema['x-events'].end, { type: 'object', required: ['reason'] })
  for (const word of ['retry: 3000', ': ping', 'Last-Event-ID', '`status`', '`done`', '`end`']) t.ok(ok.description.includes(word), `the description says ${word}`)
  t.match(doc.paths['/api/v1/sse/{reportId}'].get.description, /CORS_ORIGINS/)
})

t.test('what a stream sends matches the schemas', async (t) => {
  const owner = await signedInUser(app)
  const id = await createReport(app, owner.auth)
  const raw = await rawStream(`${base}/api/v1/sse/${id}`, owner.auth)
  t.teardown(raw.abort)
  await raw.waitForText((x) => x.includes('event: status'), 'the first event')
  const gen = await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: owner.auth })
  t.equal(gen.statusCode, 202)
  await raw.waitForEnd()
  const events = parseEvents(raw.text())
  t.ok(events.some((e) => e.event === 'done'), 'done came')
  for (const e of events) {
    t.ok(e.event in SSE_EVENTS, `${e.event} is a documented event`)
    const schema = SSE_EVENTS[e.event as SseEventName]
    t.ok(Value.Check(schema, e.data), `${e.event} ${JSON.stringify(e.data)}: ${[...Value.Errors(schema, e.data)].map((x) => `${x.path} ${x.message}`).join('; ')}`)
  }
})
