// Faults: one account's webhook endpoints hang. Account A registers ten endpoints that never answer
// (each attempt runs to its 15 s deadline) and sends bursts of test deliveries to them; account B's
// report.ready must still arrive within 5 s of the report being ready (docs/decisions/programs.md,
// Webhooks: one attempt at a time per endpoint, a quarter of a process's senders per account). The
// bursts past five a minute per endpoint are refused (429 with Retry-After). The server runs one
// report worker and the delivery senders.
import t from 'tap'
import { call, signedInOn } from '../peers/server-process.ts'
import { until } from '../peers/wait.ts'
import { startReceiver } from '../webhooks/receiver.ts'
import { errorLines, serverWithReport } from './support.ts'

/** the contract's bound for another account's delivery */
const WITHIN_MS = 5000

t.test('an account whose endpoints never answer holds only its own share: another account\'s report.ready within 5 s', async (t) => {
  const { server, user: b, id } = await serverWithReport(t, 'fair-b', { WORKERS: '1', SIGNUP_FREE_REPORTS: '3' })
  const hanging = await startReceiver(t, () => 'hold')
  const receiver = await startReceiver(t)

  const a = await signedInOn(server, 'fair-a')
  const endpoints: string[] = []
  for (let i = 0; i < 10; i++) {
    const made = await call(server, 'POST', '/webhooks', a.auth, { url: `${hanging.url}/a${i}`, events: ['webhook.test'] })
    t.equal(made.status, 201, `account A's endpoint ${i + 1}`)
    endpoints.push(made.json.id as string)
  }
  const hook = await call(server, 'POST', '/webhooks', b.auth, { url: `${receiver.url}/b`, events: ['report.ready'] })
  t.equal(hook.status, 201, 'account B\'s endpoint')

  // a burst of 40 test deliveries at A's first endpoint, and 5 at each of the others, all at once
  const burst = [...Array.from({ length: 40 }, () => endpoints[0]), ...endpoints.slice(1).flatMap((e) => [e, e, e, e, e])]
  const answers = await Promise.all(burst.map((e) => call(server, 'POST', `/webhooks/${e}/test`, a.auth)))
  const statuses = answers.map((r) => r.status)
  t.equal(statuses.filter((s) => s === 202).length, 50, 'five a minute per endpoint are queued (5 x 10)')
  t.equal(statuses.filter((s) => s === 429).length, 35, 'the other 35 of the first endpoint\'s burst are refused')
  t.ok(answers.filter((r) => r.status === 429).every((r) => Number(r.headers.get('retry-after')) >= 1), '… each with Retry-After')

  // A's attempts are hanging in the senders
  await until(() => hanging.received.length >= 2, { timeoutMs: 30_000, what: 'account A\'s deliveries to be sent' })

  const generate = await call(server, 'POST', `/report/${id}/generate`, b.auth)
  t.equal(generate.status, 202, 'account B generates a report')
  const [ready] = await receiver.waitFor(1, 60_000)
  const event = JSON.parse(ready.body) as { type: string, data: { reportId: string, generatedAt: string } }
  t.match(event, { type: 'report.ready', data: { reportId: id } }, 'account B\'s report.ready arrived')
  const late = ready.at - Date.parse(event.data.generatedAt)
  t.ok(late <= WITHIN_MS, `… ${late} ms after the report was ready (at most ${WITHIN_MS})`)
  t.comment(`account A's endpoints had ${hanging.received.length} attempts open or spent when B's arrived`)

  // A's attempts never ran more than one at a time per endpoint
  const perEndpoint = new Map<string, number>()
  for (const r of hanging.received) perEndpoint.set(r.path, (perEndpoint.get(r.path) ?? 0) + 1)
  t.ok([...perEndpoint.values()].every((n) => n === 1), `one attempt at a time per endpoint (${JSON.stringify(Object.fromEntries(perEndpoint))})`)
  t.same(errorLines(server.output()), [], 'nothing logged at error level')
})
