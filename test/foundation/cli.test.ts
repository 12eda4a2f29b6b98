// `npm run db:migrate` and `npm run promo` as the operator runs them: child processes against an
// embedded database in a temporary DATA_DIR, or a new PostgreSQL database with TEST_DATABASE_URL:
// empty for db:migrate, already migrated for promo (which is not about migrating).
// A promocode made by the CLI is then used by a sign-up on the same database. `npm run sessions`
// ends sessions of a running server, which refuses their tokens afterwards; `npm run factors` removes
// an account's second factors there, as one credential change.
import t from '../tap.ts'
import { createServer, type AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { build, GOOD_PASSWORD, signedInUser, uniqueEmail } from '../helper.ts'
import { codeAt } from '../../src/services/mfa/totp.ts'
import { softAuthenticator } from '../passkeys/authenticator.ts'
import { createDatabase } from '../../src/db/client.ts'
import { FAST_ARGON2, info, signup } from '../accounts/support.ts'
import { childDatabase, npmRun, ROOT, run, tempDir } from './support.ts'
import { call, signedInOn, startServer } from '../peers/server-process.ts'
import { until } from '../peers/wait.ts'

const npm = npmRun

const journal = JSON.parse(readFileSync(join(ROOT, 'drizzle', 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }

t.test('npm run db:migrate applies every migration, once', async (t) => {
  const target = await childDatabase(t)
  const first = await npm('db:migrate', [], target.env)
  t.equal(first.code, 0, first.stderr)
  t.match(first.stdout, target.url ? /migrations applied to PostgreSQL/ : /migrations applied to the embedded database/)
  const again = await npm('db:migrate', [], target.env)
  t.equal(again.code, 0, 'a second run is a no-op')

  const database = target.url ? await createDatabase({ url: target.url }) : await createDatabase({ dataDir: target.dataDir })
  t.teardown(() => database.close())
  const applied = await database.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations')
  t.equal(applied[0].n, journal.entries.length, 'every migration of drizzle/ is recorded once')
  const tables = (await database.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public'")).map((r) => r.table_name)
  for (const table of ['users', 'sessions', 'promocodes', 'auth_tokens', 'audit_events']) t.ok(tables.includes(table), `table ${table}`)
  const bad = await run('src/cli/migrate.ts', [], { ...target.env, DATABASE_URL: 'mysql://nowhere/db' })
  t.equal(bad.code, 1, 'a wrong setting exits 1')
  t.equal(bad.stderr.trim(), 'invalid configuration: DATABASE_URL must be a URL (postgres:// or postgresql://…) or embedded')
})

t.test('npm run db:migrate in production needs the database settings alone', async (t) => {
  const target = await childDatabase(t)
  // nothing but the database: no secrets, CAPTCHA, mail or public URL, and a value the server would refuse
  const env = { NODE_ENV: 'production', DATA_DIR: target.dataDir, DATABASE_URL: target.url || 'embedded', CAPTCHA: 'maybe', JWT_SECRET: 'short' }
  const res = await run('src/cli/migrate.ts', [], env)
  t.equal(res.code, 0, res.stderr)
  t.match(res.stdout, target.url ? /migrations applied to PostgreSQL/ : /migrations applied to the embedded database/)
  const unset = await run('src/cli/migrate.ts', [], { NODE_ENV: 'production', DATA_DIR: target.dataDir, DATABASE_URL: '' })
  t.equal(unset.code, 1)
  t.equal(unset.stderr.trim(), 'invalid configuration: DATABASE_URL must be set in production (a PostgreSQL URL, or embedded for the embedded database on purpose)',
    'production does not fall back to the embedded database')
})

t.test('a database that cannot be reached is one line naming DATABASE_URL, never its password', async (t) => {
  const dataDir = tempDir(t)
  // a port nothing listens on: connecting is refused at once
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
  const url = `postgres://pir:pass-w0rd-secret@127.0.0.1:${port}/pir`
  const cases: Array<[string, Record<string, string>]> = [
    ['src/cli/migrate.ts', { DATABASE_URL: url }],
    ['src/cli/worker.ts', { DATABASE_URL: url }],
    ['src/server.ts', { DATABASE_URL: url, TLS: 'off', ALLOW_HTTP: 'true', WORKERS: '0', PORT: '0' }],
    ['src/cli/migrate.ts', { DATABASE_URL: 'postgres://pir:50%-off@127.0.0.1/pir' }]
  ]
  const lines = [
    `DATABASE_URL: the database at postgres://pir@127.0.0.1:${port}/pir does not answer (ECONNREFUSED)`,
    `DATABASE_URL: the database at postgres://pir@127.0.0.1:${port}/pir does not answer (ECONNREFUSED)`,
    `DATABASE_URL: the database at postgres://pir@127.0.0.1:${port}/pir does not answer (ECONNREFUSED)`,
    'invalid configuration: DATABASE_URL must percent-encode its user and password (% as %25, @ as %40, / as %2F, # as %23)'
  ]
  for (const [i, [script, env]] of cases.entries()) {
    const res = await run(script, [], { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env })
    t.equal(res.code, 1, `${script}: exit code 1`)
    t.equal(res.stderr.trim(), lines[i], `${script}: one line`)
    t.notMatch(res.stderr + res.stdout, /pass-w0rd|50%-off/, `${script}: no password`)
  }
})

t.test('npm run promo: create and list; the code then works at sign-up', async (t) => {
  const target = await childDatabase(t, { migrated: true })
  const created = await npm('promo', ['create', 'SPRING-25', '--max-uses', '2', '--credits', '3', '--expires', '2099-12-31'], target.env)
  t.equal(created.code, 0, created.stderr)
  t.equal(created.stdout.trim(), 'created SPRING-25: 2 uses, 3 credit(s), expires 2099-12-31')
  const plain = await run('src/cli/promo.ts', ['create', 'PLAIN', '--max-uses', '10'], target.env)
  t.equal(plain.stdout.trim(), 'created PLAIN: 10 uses, 1 credit(s)', 'one credit and no expiry by default')

  const refusals: Array<[string[], RegExp]> = [
    [['create', 'SPRING-25', '--max-uses', '5'], /^promocode SPRING-25 already exists$/],
    [['create', 'NO-USES'], /^--max-uses: a whole number >= 1/],
    [['create', 'bad code!', '--max-uses', '1'], /^CODE: 1 to 64 letters, digits, - or _/],
    [['create', 'WHEN', '--max-uses', '1', '--expires', 'tomorrow'], /^--expires: YYYY-MM-DD$/],
    [['create', 'NEG', '--max-uses', '1', '--credits=-1'], /^--credits: a whole number >= 0$/],
    [['create', 'TYPO', '--max-use', '1'], /^Unknown option '--max-use'.*\nusage: /],
    [['create', 'DASH', '--max-uses', '1', '--credits', '-1'], /^Option '--credits' argument is ambiguous.*\nusage: /],
    [['delete', 'SPRING-25'], /^usage: npm run promo -- create CODE --max-uses N/]
  ]
  for (const [args, message] of refusals) {
    const res = await run('src/cli/promo.ts', args, target.env)
    t.equal(res.code, 2, `${args.join(' ') || '(nothing)'}: exit code 2`)
    t.match(res.stderr.trim(), message, `${args.join(' ') || '(nothing)'}: says why, in a line or two`)
    t.notMatch(res.stderr, /\n\s+at /, 'no stack trace')
  }

  const listed = await npm('promo', ['list'], target.env)
  t.equal(listed.code, 0, listed.stderr)
  t.same(listed.stdout.trim().split('\n'), [
    'PLAIN\t0/10 used\t1 credit(s)\tno expiry',
    'SPRING-25\t0/2 used\t3 credit(s)\texpires 2099-12-31'
  ])

  const database = target.url ? await createDatabase({ url: target.url }) : await createDatabase({ dataDir: target.dataDir })
  const app = await build(t, { ...FAST_ARGON2, SIGNUP_FREE_REPORTS: '1' }, { database })
  t.teardown(() => database.close())
  const email = uniqueEmail('promo-cli')
  t.same((await signup(app, { email, promocode: 'SPRING-25' })).json(), { status: 'success' })
  const { token } = await signedInUser(app, { email, signUp: false })
  t.match((await info(app, token)).json(), { promocode: 'SPRING-25', reportCredits: 4 }, 'the code is stored and its 3 credits added')
  await app.close()
  await database.close()

  const after = await npm('promo', ['list'], target.env)
  t.match(after.stdout, /^SPRING-25\t1\/2 used/m, 'list shows the use')
})

t.test('npm run sessions -- end: one user\'s sessions, then everyone\'s; the running server refuses their tokens', async (t) => {
  const target = await childDatabase(t, { migrated: true })
  // on the embedded database the command goes through this server's socket; on PostgreSQL beside it
  const server = await startServer(t, target.env)
  const [alice, bob, carol] = [await signedInOn(server, 'cli-alice'), await signedInOn(server, 'cli-bob'), await signedInOn(server, 'cli-carol')]
  const status = async (user: { auth: Record<string, string> }) => (await call(server, 'GET', '/auth/info', user.auth)).status
  for (const user of [alice, bob, carol]) t.equal(await status(user), 200, `${user.email} is signed in`)

  const refusals: Array<[string[], number, RegExp]> = [
    [[], 2, /^usage: npm run sessions -- end --user EMAIL/],
    [['end'], 2, /^one of --user EMAIL or --all\nusage: /],
    [['end', '--user', alice.email, '--all'], 2, /^one of --user EMAIL or --all/],
    [['end', '--user', 'not-an-address'], 2, /^--user: an e-mail address/],
    [['end', '--users', alice.email], 2, /^Unknown option '--users'/],
    [['end', '--user', 'nobody-here@example.com'], 1, /^no account has the address nobody-here@example.com$/]
  ]
  for (const [args, code, message] of refusals) {
    const res = await run('src/cli/sessions.ts', args, target.env)
    t.equal(res.code, code, `${args.join(' ') || '(nothing)'}: exit code ${code}`)
    t.match(res.stderr.trim(), message, `${args.join(' ') || '(nothing)'}: says why`)
  }
  t.equal(await status(alice), 200, 'a refused command ended nothing')

  const one = await npm('sessions', ['end', '--user', alice.email.toUpperCase()], target.env)
  t.equal(one.code, 0, one.stderr)
  t.equal(one.stdout.trim(), `ended 1 session(s) of ${alice.email}`)
  t.equal(await until(async () => (await status(alice)) === 401 && 401), 401, "the server refuses the user's token")
  t.equal(await status(bob), 200, 'another user stays signed in')

  const all = await npm('sessions', ['end', '--all'], target.env)
  t.equal(all.code, 0, all.stderr)
  t.equal(all.stdout.trim(), 'ended 2 session(s) of every user')
  for (const user of [bob, carol]) t.equal(await until(async () => (await status(user)) === 401 && 401), 401, `${user.email}'s token is refused`)
})

t.test('npm run factors -- remove: every second factor of an account goes, with every session; it signs in again at no level', async (t) => {
  const target = await childDatabase(t, { migrated: true })
  const server = await startServer(t, target.env)
  const alice = await signedInOn(server, 'cli-factors')
  const bob = await signedInOn(server, 'cli-factors-other')
  // an authenticator app (with its recovery codes), then a passkey, set up through the API
  const { secret } = (await call(server, 'POST', '/auth/mfa/totp', alice.auth)).json as { secret: string }
  const confirmed = await call(server, 'POST', '/auth/mfa/totp/confirm', alice.auth, { code: codeAt(secret, Date.now()) })
  t.equal(confirmed.json.status, 'success', JSON.stringify(confirmed.json))
  const leveled = { authorization: `Bearer ${confirmed.json.token as string}` }
  const key = softAuthenticator({ id: 'localhost', origin: 'https://localhost:8443' })
  const options = (await call(server, 'POST', '/auth/passkeys/register/options', leveled)).json
  t.equal((await call(server, 'POST', '/auth/passkeys/register/verify', leveled, { response: key.register(options) })).status, 201)
  const [passkey] = (await call(server, 'GET', '/auth/passkeys', leveled)).json.items as Array<{ name: string }>
  const signin = (await call(server, 'POST', '/auth/signin', {}, { email: alice.email, password: GOOD_PASSWORD, token: true })).json
  t.same(signin, { status: 'success', mfaRequired: true, token: signin.token }, 'a password sign-in asks for the second factor')
  const secondSession = { authorization: `Bearer ${signin.token as string}` }
  const status = async (auth: Record<string, string>) => (await call(server, 'GET', '/auth/info', auth)).status
  t.equal(await status(leveled), 200)
  // what whoever took the factors' place may have made: an API key and a webhook endpoint
  const issued = await call(server, 'POST', '/auth/api-keys', leveled, { name: 'made before', scopes: ['reports:read'] })
  t.equal(issued.status, 201)
  const apiKey = { authorization: `Bearer ${issued.json.key as string}` }
  t.equal((await call(server, 'GET', '/report', apiKey)).status, 200)
  t.equal((await call(server, 'POST', '/webhooks', leveled, { url: 'http://127.0.0.1:9/hook', events: ['report.ready'] })).status, 201)

  const refusals: Array<[string[], number, RegExp]> = [
    [[], 2, /^usage: npm run factors -- remove --user EMAIL$/],
    [['remove'], 2, /^--user EMAIL is required\nusage: /],
    [['end', '--user', alice.email], 2, /^usage: /],
    [['remove', '--user', 'not-an-address'], 2, /^--user: an e-mail address/],
    [['remove', '--all'], 2, /^Unknown option '--all'/],
    [['remove', '--user', 'nobody-here@example.com'], 1, /^no account has the address nobody-here@example.com$/]
  ]
  for (const [args, code, message] of refusals) {
    const res = await run('src/cli/factors.ts', args, target.env)
    t.equal(res.code, code, `${args.join(' ') || '(nothing)'}: exit code ${code}`)
    t.match(res.stderr.trim(), message, `${args.join(' ') || '(nothing)'}: says why`)
  }
  t.equal(await status(leveled), 200, 'a refused command ended nothing')

  const removed = await npm('factors', ['remove', '--user', alice.email.toUpperCase()], target.env)
  t.equal(removed.code, 0, removed.stderr)
  t.equal(removed.stdout.trim(), `removed from ${alice.email}: the authenticator app, 10 recovery code(s) (10 unused), 1 passkey(s) (${JSON.stringify(passkey.name)})\n` +
    `ended 2 session(s) of ${alice.email}\n1 API key was revoked, and this webhook endpoint was disabled: http://127.0.0.1:9/hook.`)
  t.equal(await until(async () => (await call(server, 'GET', '/report', apiKey)).status === 401 && 401), 401, 'the server refuses the API key')
  for (const auth of [leveled, secondSession]) t.equal(await until(async () => (await status(auth)) === 401 && 401), 401, 'an old session\'s token is refused')
  t.equal(await status(bob.auth), 200, 'another account stays signed in')

  const again = await call(server, 'POST', '/auth/signin', {}, { email: alice.email, password: GOOD_PASSWORD, token: true })
  t.same(again.json, { status: 'success', token: again.json.token }, 'the password alone signs in: no mfaRequired')
  const fresh = { authorization: `Bearer ${again.json.token as string}` }
  t.same((await call(server, 'GET', '/auth/info', fresh)).json.mfa, { totp: false, passkeys: 0, recoveryCodesLeft: 0 })
  t.match((await call(server, 'GET', '/webhooks', fresh)).json.items, [{ url: 'http://127.0.0.1:9/hook', disabledAt: String }], 'the webhook endpoint is disabled')
  const refused = await call(server, 'POST', '/auth/passkeys/signin/verify', {},
    { response: key.assert((await call(server, 'POST', '/auth/passkeys/signin/options')).json) })
  t.equal(refused.status, 403, 'the removed passkey signs no one in')

  const nothing = await npm('factors', ['remove', '--user', alice.email], target.env)
  t.equal(nothing.code, 0, nothing.stderr)
  t.equal(nothing.stdout.trim(), `${alice.email} has no second factor: nothing changed`)
  t.equal(await status(fresh), 200, 'nothing to remove: no session ends')

  await server.stop()
  const database = target.url ? await createDatabase({ url: target.url }) : await createDatabase({ dataDir: target.dataDir })
  t.teardown(() => database.close())
  const rows = await database.query<{ kind: string, ip: string | null, user_agent: string | null }>(
    "select kind, ip, user_agent from audit_events where user_id = (select id from users where email = $1) and kind in ('mfa.factors.removed', 'apikey.revoke', 'webhook.disable') order by id", [alice.email])
  t.same(rows, [{ kind: 'mfa.factors.removed', ip: null, user_agent: null }, { kind: 'apikey.revoke', ip: null, user_agent: null },
    { kind: 'webhook.disable', ip: null, user_agent: null }], 'an operator\'s rows: no address or User-Agent; one per key revoked and endpoint disabled')
})
