// The stream's events as the OpenAPI document describes them (schemas/sse.ts): the text/event-stream
// 200's itemSchema has one item per event name, its data a JSON payload whose schema is a component,
// and what a real stream sends validates against those schemas and the document's components.
import t from '../tap.ts'
import { Value } from '@sinclair/typebox/value'
import { SSE_EVENTS, type SseEventName } from '../../schemas/sse.ts'
import { build, signedInUser } from '../helper.ts'
import { createReport } from '../reports/report-wait.ts'
import { createAjv } from '../response-check.ts'
import { seedReportData } from '../reports/seed.ts'
import { closeApp, listen, parseEvents, rawStream } from './client.ts'

const app = await build(t, { WORKERS: '1' })
await seedReportData(app.db)
const base = await listen(app)
t.teardown(() => closeApp(app))

type Item = { properties: { event?: { enum: string[] }, data?: { contentSchema: { $ref: string } } } }
// the stream's items are an OpenAPI 3.2 itemSchema, in the 3.2 document (the 3.1 one carries them as x-itemSchema)
const doc = (await app.inject({ url: '/api/v1/openapi-3.2.json' })).json()
/** event name -> the $ref of its payload's schema, from the stream's itemSchema */
const payloads = Object.fromEntries((doc.paths['/api/v1/sse/{reportId}'].get.responses['200'].content['text/event-stream'].itemSchema.oneOf as Item[])
  .filter((i) => i.properties.event).map((i) => [i.properties.event!.enum[0], i.properties.data!.contentSchema.$ref]))
const component = (ref: string) => doc.components.schemas[ref.split('/').pop()!]

t.test('the document names the events and their payloads', async (t) => {
  const ok = doc.paths['/api/v1/sse/{reportId}'].get.responses['200']
  t.same(Object.keys(payloads).sort(), ['done', 'end', 'status'])
  t.match(component(payloads.status), { type: 'object', required: ['reportId', 'status', 'progress', 'stage'] })
  t.match(component(payloads.end), { type: 'object', required: ['reason'] })
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
  const ajv = createAjv()
  for (const e of events) {
    t.ok(e.event in SSE_EVENTS, `${e.event} is a documented event`)
    const schema = SSE_EVENTS[e.event as SseEventName]
    t.ok(Value.Check(schema, e.data), `${e.event} ${JSON.stringify(e.data)}: ${[...Value.Errors(schema, e.data)].map((x) => `${x.path} ${x.message}`).join('; ')}`)
    const documented = ajv.compile({ $ref: payloads[e.event], components: { schemas: doc.components.schemas } })
    t.ok(documented(e.data), `${e.event}: the document's ${payloads[e.event]} (${JSON.stringify(documented.errors)})`)
  }
})
