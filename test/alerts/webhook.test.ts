// The watch.alert webhook end to end: an alert raised (by recordAlerts, as the alert worker raises
// them) reaches the user's endpoints subscribed to watch.alert through the app's own delivery workers
// (WORKERS=1), signed, its data the alert exactly as GET /alerts lists it; an endpoint subscribed to
// other events gets nothing, and alerts raised in a transaction that rolls back send nothing.
import t from '../tap.ts'
import { build, signedInUser } from '../helper.ts'
import { verifyWebhook } from '../../client/src/index.ts'
import { recordAlerts } from '../../src/services/alerts/record.ts'
import { startReceiver } from '../webhooks/receiver.ts'
import { alertsFor, raiseAlerts, reportRow, userIdOf } from '../watches/support.ts'

t.test('watch.alert: one signed delivery per alert to the endpoints subscribed to it, none for a rollback', async (t) => {
  const app = await build(t, { WORKERS: '1' })
  const u = await signedInUser(app)
  const userId = userIdOf(u.token)
  const subscribe = async (url: string, events: string[]) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: u.auth, payload: { url, events } })
    t.equal(res.statusCode, 201, res.body)
    return res.json() as { id: string, secret: string }
  }
  const receiver = await startReceiver(t)
  const hook = await subscribe(`${receiver.url}/alerts`, ['watch.alert'])
  const otherReceiver = await startReceiver(t)
  const other = await subscribe(`${otherReceiver.url}/reports`, ['report.ready'])

  const reportId = await reportRow(app, userId)
  const made = await app.inject({ method: 'POST', url: `/api/v1/report/${reportId}/watch`, headers: u.auth })
  t.equal(made.statusCode, 201, made.body)
  const watch = { userId, watchId: made.json().id as string, reportId }

  // a transaction that raises and then rolls back: no alert, no delivery
  await t.rejects(app.db.transaction(async (tx) => {
    await recordAlerts(tx, alertsFor(watch, ['2025-01']), new Date(), [0])
    throw new Error('rolled back')
  }), /rolled back/)

  await raiseAlerts(app, watch, ['2025-02', '2025-03'])
  const got = await receiver.waitFor(2, 30_000)
  const listed = (await app.inject({ url: '/api/v1/alerts', headers: u.auth })).json().items as Array<{ month: string }>
  t.same(listed.map((a) => a.month), ['2025-03', '2025-02'], 'the rolled-back alert was never raised')
  const payloads = got.map((r) => {
    t.equal(r.path, '/alerts')
    return verifyWebhook(hook.secret, r.headers, r.body) as { type: string, timestamp: string, data: { month: string } }
  }).sort((a, b) => a.data.month < b.data.month ? 1 : -1)
  t.same(payloads.map((p) => p.type), ['watch.alert', 'watch.alert'])
  t.same(payloads.map((p) => p.data), listed, 'each delivery carries its alert as GET /alerts lists it')

  const others = await app.inject({ url: `/api/v1/webhooks/${other.id}/deliveries`, headers: u.auth })
  t.same(others.json().items, [], 'an endpoint not subscribed to watch.alert gets none')
  t.equal(otherReceiver.received.length, 0)
  const mine = (await app.inject({ url: `/api/v1/webhooks/${hook.id}/deliveries`, headers: u.auth })).json().items as Array<{ type: string }>
  t.same(mine.map((d) => d.type), ['watch.alert', 'watch.alert'], 'two deliveries, none for the rollback')
})
