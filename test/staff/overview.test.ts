// GET /admin/overview: what the accounts, reports, queue, webhook backlog and alert work count, as
// the database holds them.
import t from '../tap.ts'
import { signedInUser } from '../helper.ts'
import { buildMfaApp, inject } from '../mfa/support.ts'
import { staffMember } from './support.ts'

t.test('the overview counts what is there', async (t) => {
  const m = await buildMfaApp(t)
  const { app } = m
  const admin = await staffMember(m, 'admin')
  const a = await signedInUser(app)
  await signedInUser(app)
  const [{ id }] = await app.database.query<{ id: string }>('select id from users where email = $1', [a.email])
  await app.database.query("update users set confirmed_at = now(), disabled_at = now(), created_at = now() - interval '2 days' where id = $1", [id])
  await app.database.query(`insert into reports (user_id, status, profiles, generated_at) values
    ($1, 'ready', '[]', now()), ($1, 'ready', '[]', now() - interval '3 days'), ($1, 'failed', '[]', null), ($1, 'draft', '[]', null)`, [id])
  const [hook] = await app.database.query<{ id: string }>("insert into webhook_endpoints (user_id, url, events, secret) values ($1, 'http://127.0.0.1:9/', '{report.ready}', 's') returning id", [id])
  await app.database.query(`insert into webhook_deliveries (endpoint_id, type, body, status) values
    ($1, 'report.ready', '{}', 'pending'), ($1, 'report.ready', '{}', 'failed'), ($1, 'report.ready', '{}', 'failed'), ($1, 'report.ready', '{}', 'delivered')`, [hook.id])
  await app.database.query("insert into alert_pending (profile_id) values ('p1'), ('p2'), ('p3')")

  const res = await inject(app, 'GET', '/admin/overview', admin.auth)
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    // the admin and two people; the one back-dated two days is not new, and is the confirmed and disabled one
    users: { total: 3, confirmed: 1, disabled: 1, new24h: 2 },
    reports: { byStatus: { draft: 1, queued: 0, generating: 0, ready: 2, failed: 1 }, generated24h: 1 },
    queue: { waiting: 0, active: 0 },
    webhooks: { pending: 1, failed: 2 },
    alerts: { pending: 3 }
  })
})
