// `npm run admins` as the operator runs it, a child process against a database of its own: grant,
// revoke and list; the last admin is never revoked; unknown addresses and bad arguments say so in a
// line; each change is an `admin.role` audit row with no actor (an operator's command).
import t from '../tap.ts'
import { createDatabase, type Database } from '../../src/db/client.ts'
import { childDatabase, npmRun, run } from '../foundation/support.ts'

const npm = (args: string[], env: Record<string, string>) => npmRun('admins', args, env)

t.test('grant, revoke, list; never the last admin; every change audited without an actor', async (t) => {
  const target = await childDatabase(t, { migrated: true })
  const open = async (): Promise<Database> => target.url ? await createDatabase({ url: target.url }) : await createDatabase({ dataDir: target.dataDir })
  let database = await open()
  await database.query("insert into users (email) values ('ann@example.com'), ('bob@example.com'), ('cat@example.com')")
  await database.close()
  const admins = (args: string[], env: Record<string, string> = {}) => run('src/cli/admins.ts', args, { NODE_ENV: 'test', LOG_LEVEL: 'silent', ...target.env, ...env })

  const empty = await npm(['list'], target.env)
  t.equal(empty.code, 0, empty.stderr)
  t.equal(empty.stdout.trim(), 'no staff')

  const granted = await npm(['grant', 'ANN@example.com', '--role', 'admin'], target.env)
  t.equal(granted.code, 0, granted.stderr)
  t.equal(granted.stdout.trim(), 'ann@example.com: user -> admin')
  t.equal((await admins(['grant', 'bob@example.com', '--role', 'support'])).stdout.trim(), 'bob@example.com: user -> support')
  t.equal((await admins(['grant', 'bob@example.com', '--role', 'support'])).stdout.trim(), 'bob@example.com is support already: nothing changed')
  t.same((await admins(['list'])).stdout.trim().split('\n'), ['ann@example.com\tadmin', 'bob@example.com\tsupport'], 'admins first')

  const last = await admins(['revoke', 'ann@example.com'])
  t.equal(last.code, 1)
  t.equal(last.stderr.trim(), 'refused: ann@example.com is the last admin; grant another admin first', 'one line')
  t.equal(last.stdout, '')

  t.equal((await admins(['grant', 'cat@example.com', '--role', 'admin'])).code, 0)
  const revoked = await admins(['revoke', 'ann@example.com'], { ADMIN_EMAILS: 'ann@example.com' })
  t.equal(revoked.code, 0, revoked.stderr)
  t.same(revoked.stdout.trim().split('\n'), [
    'ann@example.com: admin -> user',
    'note: ann@example.com is listed in ADMIN_EMAILS and becomes admin again at its next sign-in; remove it there too'
  ])

  const unknown = await admins(['grant', 'nobody@example.com', '--role', 'admin'])
  t.equal(unknown.code, 1)
  t.equal(unknown.stderr.trim(), 'no account has the address nobody@example.com')

  const refusals: Array<[string[], RegExp]> = [
    [[], /^usage: npm run admins -- grant EMAIL --role admin\|support/],
    [['grant', 'ann@example.com'], /^--role: admin or support\nusage: /],
    [['grant', 'ann@example.com', '--role', 'owner'], /^--role: admin or support\nusage: /],
    [['grant', 'not-an-address', '--role', 'admin'], /^EMAIL: an e-mail address\nusage: /],
    [['revoke'], /^EMAIL is required\nusage: /],
    [['revoke', 'ann@example.com', '--role', 'admin'], /^usage: /],
    [['list', 'extra'], /^usage: /],
    [['grant', 'ann@example.com', '--rol', 'admin'], /^Unknown option '--rol'.*\nusage: /]
  ]
  for (const [args, message] of refusals) {
    const res = await admins(args)
    t.equal(res.code, 2, `${args.join(' ') || '(nothing)'}: exit code 2`)
    t.match(res.stderr.trim(), message, `${args.join(' ') || '(nothing)'}: says why`)
    t.notMatch(res.stderr, /\n\s+at /, 'no stack trace')
  }

  database = await open()
  t.teardown(() => database.close())
  const rows = await database.query<{ email: string, actor_id: string | null, ip: string | null, details: Record<string, unknown> }>(
    "select u.email, a.actor_id, a.ip, a.details from audit_events a join users u on u.id = a.user_id where a.kind = 'admin.role' order by a.id")
  t.same(rows, [
    { email: 'ann@example.com', actor_id: null, ip: null, details: { from: 'user', to: 'admin', reason: 'npm run admins -- grant' } },
    { email: 'bob@example.com', actor_id: null, ip: null, details: { from: 'user', to: 'support', reason: 'npm run admins -- grant' } },
    { email: 'cat@example.com', actor_id: null, ip: null, details: { from: 'user', to: 'admin', reason: 'npm run admins -- grant' } },
    { email: 'ann@example.com', actor_id: null, ip: null, details: { from: 'admin', to: 'user', reason: 'npm run admins -- revoke' } }
  ], 'one row per change, none for a refusal or a change to the same role')
})
