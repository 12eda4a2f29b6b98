// A webhook worker process (`npm run worker`) killed with SIGKILL in the middle of a delivery: the
// receiver holds the request open, the worker is killed, another worker process takes the delivery
// over once the first one's lease has run out and sends it again with the same webhook-id; the
// delivery ends delivered exactly once in the database, and nothing is lost
// (docs/decisions/programs.md, Webhooks). The server runs no workers of its own.
import t from 'tap'
import { verifyWebhook } from '../../client/src/index.ts'
import { freshDatabase, onPostgres } from '../helper.ts'
import { call, signedInOn, startServer, startWorker } from '../peers/server-process.ts'
import { databaseUrl } from '../streams/databases.ts'
import { startReceiver } from '../webhooks/receiver.ts'

const skip = onPostgres ? false : 'several processes on one database need PostgreSQL (set TEST_DATABASE_URL); PGlite lives inside one process'

t.test('a worker killed mid-delivery: another worker sends it again, same webhook-id, delivered once', { skip }, async (t) => {
  const database = await freshDatabase(t)
  const url = databaseUrl(database)
  // the first request is held open; every later one is answered 200
  const receiver = await startReceiver(t, (n) => n === 0 ? 'hold' : 200)
  const server = await startServer(t, { DATABASE_URL: url, WORKERS: '0' })
  const first = await startWorker(t, { DATABASE_URL: url, WORKERS: '1', PGAPPNAME: 'worker-a' })
  t.teardown(() => { if (!t.passing()) t.comment(`server:\n${server.output().slice(-10_000)}\nworker a:\n${first.output()}`) })

  const user = await signedInOn(server, 'webhook-kill')
  const hook = await call(server, 'POST', '/webhooks', user.auth, { url: `${receiver.url}/hook`, events: ['webhook.test'] })
  t.equal(hook.status, 201)
  const test = await call(server, 'POST', `/webhooks/${hook.json.id}/test`, user.auth)
  t.equal(test.status, 202)
  const deliveryId = test.json.deliveryId as string

  const [held] = await receiver.waitFor(1)
  t.equal(held.headers['webhook-id'], deliveryId, 'the first worker is sending it')
  first.child.kill('SIGKILL')
  t.equal(await first.exited, null, 'the first worker is gone')
  t.equal(first.child.signalCode, 'SIGKILL')
  const state = async () => (await database.query<{ status: string, attempts: number, delivered_at: Date | string | null }>(
    'select status, attempts, delivered_at from webhook_deliveries where id = $1', [deliveryId]))[0]
  t.match(await state(), { status: 'pending', attempts: 0 }, 'the delivery is still pending, its attempt unrecorded')

  const second = await startWorker(t, { DATABASE_URL: url, WORKERS: '1', PGAPPNAME: 'worker-b' })
  t.teardown(() => { if (!t.passing()) t.comment(`worker b:\n${second.output()}`) })
  const [, again] = await receiver.waitFor(2, 90_000)
  t.equal(again.headers['webhook-id'], deliveryId, 'sent again with the same webhook-id')
  t.equal(again.body, held.body, 'the same body')
  t.equal(verifyWebhook(hook.json.secret, again.headers, again.body).type, 'webhook.test', 'signed')

  const until = Date.now() + 30_000
  while ((await state()).status === 'pending' && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100))
  const done = await state()
  t.match(done, { status: 'delivered', attempts: 1 }, 'delivered, one attempt recorded')
  t.ok(done.delivered_at, 'with the time it was delivered')
  const [{ n }] = await database.query<{ n: number }>('select count(*)::int as n from webhook_deliveries')
  t.equal(n, 1, 'one delivery in the database')
  const listed = await call(server, 'GET', `/webhooks/${hook.json.id}/deliveries`, user.auth)
  t.match(listed.json, { total: 1, items: [{ id: deliveryId, status: 'delivered', attempts: 1, lastStatusCode: 200 }] })
  t.equal(receiver.received.length, 2, 'the receiver got it twice: the killed attempt and the one that delivered')
  t.equal(second.child.exitCode, null, 'the second worker runs on')
})
