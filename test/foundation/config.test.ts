// Configuration: validated at start, a wrong value is one line naming the variable, and
// NODE_ENV=production refuses every development fallback. Also the TLS material of src/tls.ts and
// .env.example documenting every variable.
import t, { type Test } from '../tap.ts'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { X509Certificate } from 'node:crypto'
import { environment, loadConfig } from '../../src/config.ts'
import { ConfigError } from '../../src/errors.ts'
import { EnvSchema } from '../../schemas/env.ts'
import { loadTls } from '../../src/tls.ts'
import { childEnv, ROOT, tempDir } from './support.ts'

const SECRET = 'a-long-enough-secret-0123456789abcdefghij'

function refusal (t: Test, env: Record<string, string | undefined>, variable: string, what: string) {
  try {
    loadConfig(env)
    t.fail(`${what}: accepted`)
  } catch (err) {
    t.type(err, ConfigError, what)
    const message = (err as Error).message
    t.notMatch(message, /\n/, `${what}: one line`)
    t.match(message, new RegExp(`^invalid configuration: ${variable}\\b`), `${what}: names ${variable} (${message})`)
  }
}

t.test('a wrong value is one line naming the variable', async (t) => {
  const dataDir = tempDir(t)
  const cases: Array<[Record<string, string>, string]> = [
    [{ NODE_ENV: 'prod' }, 'NODE_ENV'],
    [{ PORT: 'https' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PUBLIC_URL: 'localhost:8443' }, 'PUBLIC_URL'],
    [{ PUBLIC_URL: 'https://bad host' }, 'PUBLIC_URL'],
    [{ DATABASE_URL: 'mysql://db/x' }, 'DATABASE_URL'],
    [{ DATABASE_PREPARE: 'false' }, 'DATABASE_PREPARE'],
    [{ DATABASE_URL: 'postgres://pooler:6432/pir', DATABASE_DIRECT_URL: 'db:5432' }, 'DATABASE_DIRECT_URL'],
    [{ DATABASE_DIRECT_URL: 'postgres://db:5432/pir' }, 'DATABASE_DIRECT_URL'],
    [{ TLS: 'yes' }, 'TLS'],
    [{ TLS_CERT_FILE: '/etc/cert.pem' }, 'TLS_KEY_FILE'],
    [{ TLS_KEY_FILE: '/etc/key.pem' }, 'TLS_CERT_FILE'],
    [{ TRUST_PROXY: '10.0.0.1, proxy.internal' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ ALLOW_HTTP: 'perhaps' }, 'ALLOW_HTTP'],
    [{ JWT_SECRET: 'too short' }, 'JWT_SECRET'],
    [{ JWT_PREVIOUS_SECRETS: `${SECRET},short` }, 'JWT_PREVIOUS_SECRETS'],
    [{ JWT_TTL: '1.5' }, 'JWT_TTL'],
    [{ JWT_TTL: '10' }, 'JWT_TTL'],
    [{ JWT_TTL: '7200', SESSION_IDLE_TTL: '3600' }, 'JWT_TTL'],
    [{ JWT_TTL: '600', SESSION_IDLE_TTL: '7200', SESSION_ABSOLUTE_TTL: '3600' }, 'SESSION_IDLE_TTL'],
    [{ SESSION_SECRET: 'short' }, 'SESSION_SECRET'],
    [{ SESSION_PREVIOUS_SECRETS: `${SECRET}, short` }, 'SESSION_PREVIOUS_SECRETS'],
    [{ SESSION_IDLE_TTL: 'a week' }, 'SESSION_IDLE_TTL'],
    [{ SESSION_ABSOLUTE_TTL: 'a month' }, 'SESSION_ABSOLUTE_TTL'],
    [{ CAPTCHA: 'maybe' }, 'CAPTCHA'],
    [{ CAPTCHA: 'on' }, 'CAPTCHA_VERIFY_URL'],
    [{ CAPTCHA_VERIFY_URL: 'siteverify' }, 'CAPTCHA_VERIFY_URL'],
    [{ SMTP_URL: 'mail.example.com:25' }, 'SMTP_URL'],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL'],
    [{ EVENTS_URL: 'postgres://127.0.0.1/events' }, 'EVENTS_URL'],
    [{ WORKERS: '-1' }, 'WORKERS'],
    [{ SIGNUP_FREE_REPORTS: 'one' }, 'SIGNUP_FREE_REPORTS'],
    [{ DEMO_DATA: 'true' }, 'DEMO_DATA'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ METRICS_PORT: 'ninety' }, 'METRICS_PORT'],
    [{ ARGON2_MEMORY_KIB: '64' }, 'ARGON2_MEMORY_KIB'],
    [{ RATE_LIMIT_SIGNIN_IP: '0' }, 'RATE_LIMIT_SIGNIN_IP']
  ]
  for (const [env, variable] of cases) refusal(t, { DATA_DIR: dataDir, ...env }, variable, JSON.stringify(env))

  // an enumerated variable says what it accepts, and no value is echoed (it could be a secret)
  t.throws(() => loadConfig({ DATA_DIR: dataDir, TLS: 'yes' }), { message: 'invalid configuration: TLS must be one of on, off' })
  t.throws(() => loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'hunter2-hunter2' }), { message: /^(?!.*hunter2)/ })
})

t.test('NODE_ENV=production refuses every development fallback', async (t) => {
  const dataDir = tempDir(t)
  const production = {
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    DATABASE_URL: 'postgres://pir@db.internal:5432/pir',
    PUBLIC_URL: 'https://reports.example',
    JWT_SECRET: SECRET,
    SESSION_SECRET: SECRET + 'x',
    MFA_ENCRYPTION_KEY: SECRET + 'm',
    TLS_CERT_FILE: '/etc/pir/cert.pem',
    TLS_KEY_FILE: '/etc/pir/key.pem',
    CAPTCHA_VERIFY_URL: 'https://challenges.example/siteverify',
    CAPTCHA_SECRET: 'captcha-secret',
    SMTP_URL: 'smtp://mail.example:587'
  }
  const ok = loadConfig(production)
  t.equal(ok.production, true, 'fully configured production starts')
  t.equal(ok.captcha.enabled, true, 'CAPTCHA is on')
  t.equal(ok.demoData, false, 'no demo data')
  t.equal(ok.allowHttp, false)

  const without = (name: keyof typeof production) => { const e: Record<string, string> = { ...production }; delete e[name]; return e }
  refusal(t, without('JWT_SECRET'), 'JWT_SECRET', 'a generated JWT secret')
  refusal(t, without('SESSION_SECRET'), 'SESSION_SECRET', 'a generated session secret')
  refusal(t, without('MFA_ENCRYPTION_KEY'), 'MFA_ENCRYPTION_KEY', 'a generated key for second-factor secrets')
  refusal(t, without('TLS_CERT_FILE'), 'TLS_CERT_FILE', 'a self-signed certificate (no cert file)')
  refusal(t, without('TLS_KEY_FILE'), 'TLS_KEY_FILE', 'a self-signed certificate (no key file)')
  refusal(t, { ...without('TLS_CERT_FILE'), TLS_KEY_FILE: '' }, 'TLS_CERT_FILE', 'a self-signed certificate (neither file)')
  refusal(t, { ...production, CAPTCHA: 'off' }, 'CAPTCHA', 'CAPTCHA=off')
  refusal(t, without('CAPTCHA_VERIFY_URL'), 'CAPTCHA_VERIFY_URL', 'no CAPTCHA provider')
  refusal(t, without('CAPTCHA_SECRET'), 'CAPTCHA_VERIFY_URL', 'no CAPTCHA secret')
  refusal(t, without('SMTP_URL'), 'SMTP_URL', 'the mail outbox')
  refusal(t, { ...production, ALLOW_HTTP: 'true' }, 'ALLOW_HTTP', 'ALLOW_HTTP')
  refusal(t, { ...production, DEMO_DATA: 'on' }, 'DEMO_DATA', 'demo data')
  refusal(t, { ...production, OUTBOUND_ALLOW_PRIVATE: 'on' }, 'OUTBOUND_ALLOW_PRIVATE', 'outbound requests to private addresses')
  refusal(t, { ...production, INGEST_TOKEN: 'x'.repeat(31) }, 'INGEST_TOKEN', 'an ingest token under 32 characters')
  t.equal(loadConfig({ ...production, INGEST_TOKEN: 'x'.repeat(32) }).ingest.token.length, 32, 'a 32-character ingest token starts')
  t.equal(loadConfig({ ...production, DATA_DIR: dataDir }).ingest.token, '', 'no ingest token: the endpoint is off, which needs no strength')
  t.notOk(existsSync(join(dataDir, 'secrets.json')), 'production never writes generated secrets')

  const proxied = loadConfig({ ...without('TLS_CERT_FILE'), TLS_KEY_FILE: '', TLS: 'off', TRUST_PROXY: '10.0.0.0/8' })
  t.equal(proxied.tls.enabled, false, 'TLS=off behind a proxy needs no certificate')
  t.same(proxied.trustProxy, ['10.0.0.0/8'])
  refusal(t, { ...without('TLS_CERT_FILE'), TLS_KEY_FILE: '', TLS: 'off' }, 'TRUST_PROXY', 'TLS=off with no proxy trusted (every request would be 403)')

  refusal(t, without('DATABASE_URL'), 'DATABASE_URL', 'the embedded database by default')
  refusal(t, { ...production, DATABASE_URL: '' }, 'DATABASE_URL', 'the embedded database by a blank DATABASE_URL')
  const embedded = loadConfig({ ...production, DATABASE_URL: 'embedded' })
  t.equal(embedded.databaseUrl, '', 'DATABASE_URL=embedded: the embedded database, asked for by name')
  t.equal(embedded.dataDir, dataDir)
  const direct = loadConfig(production)
  t.equal(direct.databaseDirectUrl, direct.databaseUrl, 'no pooler: LISTEN and migrations on DATABASE_URL')
  const pooled = loadConfig({ ...production, DATABASE_URL: 'postgres://pir@pooler.internal:6432/pir', DATABASE_DIRECT_URL: 'postgres://pir@db.internal:5432/pir', DATABASE_PREPARE: 'off' })
  t.same([pooled.databaseUrl, pooled.databaseDirectUrl, pooled.databasePrepare], ['postgres://pir@pooler.internal:6432/pir', 'postgres://pir@db.internal:5432/pir', false],
    'behind a pooler: the pool through it, LISTEN and migrations on the database itself, nothing prepared')

  for (const url of ['https://localhost:8443', 'https://LOCALHOST', 'http://pir.localhost', 'https://127.0.0.1', 'https://127.1.2.3:8443',
    'https://[::1]:8443', 'https://0.0.0.0', 'https://[::ffff:127.0.0.1]']) {
    refusal(t, { ...production, PUBLIC_URL: url }, 'PUBLIC_URL', `PUBLIC_URL=${url} (mailed links would point at this machine)`)
  }
  for (const url of ['https://reports.example', 'https://10.0.0.5', 'https://localhost.example.com', 'https://[2001:db8::1]']) {
    t.equal(loadConfig({ ...production, PUBLIC_URL: url }).publicUrl, url, `PUBLIC_URL=${url} is accepted`)
  }
})

t.test('every problem at once, a line each: an operator learns the whole list in one run', async (t) => {
  const dataDir = tempDir(t)
  const lines = (env: Record<string, string>) => {
    try {
      loadConfig({ DATA_DIR: dataDir, ...env })
    } catch (err) {
      t.type(err, ConfigError)
      return (err as Error).message.split('\n')
    }
    return []
  }
  t.same(lines({ NODE_ENV: 'production' }), [
    'invalid configuration: DATABASE_URL must be set in production (a PostgreSQL URL, or embedded for the embedded database on purpose)',
    'invalid configuration: JWT_SECRET must be set in production',
    'invalid configuration: SESSION_SECRET must be set in production',
    'invalid configuration: MFA_ENCRYPTION_KEY must be set in production',
    'invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set (no self-signed certificate) in production',
    'invalid configuration: PUBLIC_URL must be set to the public origin in production',
    'invalid configuration: CAPTCHA_VERIFY_URL and CAPTCHA_SECRET must be set in production',
    'invalid configuration: SMTP_URL must be set (no mail outbox) in production'
  ], 'production with nothing set: every variable it needs')
  t.notOk(existsSync(join(dataDir, 'secrets.json')), 'and no development secrets were generated for it')

  const mixed = lines({ PORT: 'https', TLS: 'yes', LOG_LEVEL: 'loud', REDIS_URL: 'http://r', JWT_TTL: '7200', SESSION_IDLE_TTL: '3600', JWT_SECRET: 'hunter2' })
  t.same(mixed, [
    'invalid configuration: PORT must be integer',
    'invalid configuration: TLS must be one of on, off',
    'invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    'invalid configuration: REDIS_URL must be a URL (redis:// or rediss://…)',
    'invalid configuration: JWT_SECRET must be at least 32 bytes',
    'invalid configuration: JWT_TTL must not exceed SESSION_IDLE_TTL'
  ], 'schema refusals and the checks after them, in one message')
  t.notMatch(mixed.join('\n'), /hunter2/, 'no value is echoed')
})

t.test('a blank value is unset, from the environment and from .env alike (compose\'s env_file passes NAME= as "")', async (t) => {
  const dir = tempDir(t)
  const dataDir = join(dir, 'data')
  const names = Object.keys(EnvSchema.properties).filter((n) => n !== 'DATA_DIR' && n !== 'NODE_ENV')
  const blankFile = join(dir, '.env')
  // as `cp .env.example .env` with every value cleared: NAME= lines, and one of spaces
  writeFileSync(blankFile, names.map((n) => n === 'PORT' ? `${n}=   ` : `${n}=`).join('\n') + '\n')
  const defaults = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir })
  const fromFile = loadConfig(environment({ NODE_ENV: 'test', DATA_DIR: dataDir }, blankFile))
  t.same(fromFile, defaults, 'a .env of blank lines: every default')
  const blanks = Object.fromEntries(names.map((n) => [n, '']))
  const fromEnv = loadConfig(environment({ NODE_ENV: 'test', DATA_DIR: dataDir, ...blanks }, join(dir, 'none')))
  t.same(fromEnv, defaults, 'blank variables in the environment: every default')
  writeFileSync(blankFile, 'PORT=9000\nCAPTCHA=on\nCAPTCHA_VERIFY_URL=https://captcha.example/v\n')
  const merged = environment({ PORT: '', CAPTCHA: ' ' }, blankFile)
  t.same([merged.PORT, merged.CAPTCHA], ['9000', 'on'], 'a blank in the environment is unset, so the file fills it')
})

t.test('a process started with blank variables and a .env of blank lines gets the defaults', async (t) => {
  const dir = tempDir(t)
  const names = Object.keys(EnvSchema.properties).filter((n) => !['DATA_DIR', 'NODE_ENV', 'UV_THREADPOOL_SIZE'].includes(n))
  writeFileSync(join(dir, '.env'), names.map((n) => `${n}=`).join('\n') + '\n')
  const config = pathToFileURL(join(ROOT, 'src/config.ts')).href
  const code = `const { loadConfig } = await import(${JSON.stringify(config)})
    try { const c = loadConfig(); console.log(JSON.stringify([c.port, c.captcha.enabled, c.demoData, c.logLevel, c.databaseUrl])) }
    catch (err) { console.error(err.message); process.exit(1) }`
  const child = spawn(process.execPath, ['--import', fileURLToPath(import.meta.resolve('tsx')), '--input-type=module', '-e', code], {
    cwd: dir,
    // the real environment, as compose's env_file sets it: NAME= for every line of the file
    env: childEnv({ NODE_ENV: 'development', DATA_DIR: join(dir, 'data'), ...Object.fromEntries(names.map((n) => [n, ''])) }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { err += d })
  const [exit] = await once(child, 'exit')
  t.equal(exit, 0, err)
  t.same(JSON.parse(out), [8443, false, true, 'info', ''], 'PORT, CAPTCHA, DEMO_DATA, LOG_LEVEL and DATABASE_URL as if unset')
})

t.test('development fallbacks: secrets generated once, CAPTCHA off without a provider, outbox, demo data', async (t) => {
  const dataDir = tempDir(t)
  const first = loadConfig({ DATA_DIR: dataDir })
  t.equal(first.env, 'development', 'NODE_ENV defaults to development')
  t.equal(first.port, 8443)
  t.equal(first.host, '127.0.0.1')
  t.equal(first.metricsHost, '127.0.0.1', 'the metrics listener is on loopback unless told otherwise')
  t.equal(loadConfig({ DATA_DIR: dataDir, HOST: '0.0.0.0' }).metricsHost, '127.0.0.1', 'whatever HOST says')
  t.equal(loadConfig({ DATA_DIR: dataDir, METRICS_HOST: '0.0.0.0' }).metricsHost, '0.0.0.0')
  t.equal(loadConfig({ DATA_DIR: dataDir, INGEST_TOKEN: 'short' }).ingest.token, 'short', 'outside production a short ingest token is allowed')
  t.same([first.rateLimits.resend, first.rateLimits.authFailuresIp, first.rateLimits.localKeys], [3, 60, 100_000], 'the new limits\' defaults')
  t.equal(first.publicUrl, 'https://localhost:8443')
  // unset PUBLIC_URL follows the listener: cookies, the Origin check, mailed links and passkeys work on any port
  t.equal(loadConfig({ DATA_DIR: dataDir, PORT: '9343' }).publicUrl, 'https://localhost:9343', 'PUBLIC_URL follows PORT')
  t.equal(loadConfig({ DATA_DIR: dataDir, PORT: '9343', TLS: 'off' }).publicUrl, 'http://localhost:9343', '… and TLS=off')
  t.equal(loadConfig({ DATA_DIR: dataDir, HOST: '0.0.0.0' }).publicUrl, 'https://localhost:8443', 'every address of this machine is localhost (the certificate\'s name)')
  t.equal(loadConfig({ DATA_DIR: dataDir, HOST: '192.0.2.7' }).publicUrl, 'https://192.0.2.7:8443', 'another address is named as it is')
  t.equal(loadConfig({ DATA_DIR: dataDir, HOST: 'fd00::7' }).publicUrl, 'https://[fd00::7]:8443')
  t.ok(first.publicUrlFollowsListener, 'unset: it follows the listener')
  const set = loadConfig({ DATA_DIR: dataDir, PORT: '9343', PUBLIC_URL: 'https://localhost:8443' })
  t.same([set.publicUrl, set.publicUrlFollowsListener], ['https://localhost:8443', false], 'a PUBLIC_URL that is set is kept')
  t.equal(first.tls.enabled, true)
  t.equal(first.jwt.ttl, 86400)
  t.equal(first.session.idleTtl, 604800, 'SESSION_IDLE_TTL: 7 days')
  t.equal(first.session.absoluteTtl, 2592000, 'SESSION_ABSOLUTE_TTL: 30 days')
  t.ok(Buffer.byteLength(first.jwt.secret) >= 32, 'a generated JWT secret')
  t.ok(Buffer.byteLength(first.session.secret) >= 32, 'a generated session secret')
  t.not(first.jwt.secret, first.session.secret)
  t.ok(Buffer.byteLength(first.mfa.encryptionKey) >= 32, 'a generated key for second-factor secrets')
  const file = join(dataDir, 'secrets.json')
  t.equal(statSync(file).mode & 0o777, 0o600, 'kept in DATA_DIR/secrets.json, readable by the owner only')
  const second = loadConfig({ DATA_DIR: dataDir })
  t.equal(second.jwt.secret, first.jwt.secret, 'the same secrets on the next start (sessions survive a restart)')
  t.equal(second.session.secret, first.session.secret)
  t.equal(first.secretsFile, file, 'the config names the generated secrets file (the start-up log shows it)')
  t.equal(loadConfig({ DATA_DIR: dataDir, JWT_SECRET: SECRET, SESSION_SECRET: SECRET, MFA_ENCRYPTION_KEY: SECRET }).secretsFile, null, 'no file when all three are set')
  t.equal(first.captcha.enabled, false, 'no CAPTCHA provider in development: off')
  t.equal(loadConfig({ DATA_DIR: dataDir, CAPTCHA_VERIFY_URL: 'http://127.0.0.1:1/v' }).captcha.enabled, true, 'on once a provider is set')
  t.equal(first.mail.smtpUrl, '')
  t.equal(first.mail.outboxDir, join(dataDir, 'outbox'), 'mail goes to DATA_DIR/outbox')
  t.equal(first.demoData, true, 'demo data in development')
  t.equal(loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test' }).demoData, false, 'not in tests')
  t.equal(loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'https://pir.example/' }).publicUrl, 'https://pir.example', 'a trailing slash is dropped')
  t.same(loadConfig({ DATA_DIR: dataDir, CORS_ORIGINS: ' https://a.example ,https://b.example,' }).corsOrigins, ['https://a.example', 'https://b.example'])
  t.equal(loadConfig({ DATA_DIR: dataDir, PORT: '' }).port, 8443, 'an empty value means unset')

  writeFileSync(file, 'not json')
  const regenerated = loadConfig({ DATA_DIR: dataDir })
  t.ok(Buffer.byteLength(regenerated.jwt.secret) >= 32, 'a damaged secrets file is replaced')
})

t.test('.env in the working directory fills what the environment leaves unset', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, '.env')
  t.same(environment({ PORT: '9000' }, file), { PORT: '9000' }, 'no .env: the environment alone')
  writeFileSync(file, [
    '# a comment', 'PORT=8000', 'HOST=0.0.0.0', 'PUBLIC_URL="https://pir.example"', 'MAIL_FROM=\'Reports <r@pir.example>\'',
    'export LOG_LEVEL=warn', 'DATA_DIR=' + join(dir, 'data'), 'UV_THREADPOOL_SIZE=16', ''
  ].join('\n'))
  const merged = environment({ PORT: '9000', NODE_ENV: 'test' }, file)
  t.equal(merged.PORT, '9000', 'the environment wins over the file')
  t.equal(merged.NODE_ENV, 'test')
  t.equal(merged.HOST, '0.0.0.0', 'the file fills what the environment leaves unset')
  t.equal(merged.PUBLIC_URL, 'https://pir.example', 'quotes are removed')
  t.equal(merged.MAIL_FROM, 'Reports <r@pir.example>')
  t.notOk('UV_THREADPOOL_SIZE' in merged, 'but not libuv\'s pool, which the process started with')
  const config = loadConfig(merged)
  t.equal(config.argon2Concurrency, 3, 'hashes sized by the pool the process has (libuv\'s 4 here)')
  t.equal(config.port, 9000)
  t.equal(config.host, '0.0.0.0')
  t.equal(config.dataDir, join(dir, 'data'))
  // a .env that is not a readable file is one line naming it, not a stack trace
  t.throws(() => environment({}, dir), { constructor: ConfigError, message: `invalid configuration: ${dir} cannot be read (EISDIR)` })
})

t.test('.env.example documents every variable, and the schema has every documented variable', async (t) => {
  const lines = readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n')
  for (const name of Object.keys(EnvSchema.properties)) {
    const i = lines.findIndex((l) => l.startsWith(`${name}=`))
    t.ok(i >= 0, `${name} is in .env.example`)
    let j = i - 1
    while (j >= 0 && /^[A-Z0-9_]+=/.test(lines[j])) j--
    t.ok(j >= 0 && lines[j].startsWith('#'), `${name} has a comment`)
  }
  const design = ['NODE_ENV', 'HOST', 'PORT', 'PUBLIC_URL', 'DATA_DIR', 'DATABASE_URL', 'TLS', 'TLS_CERT_FILE', 'TLS_KEY_FILE',
    'TRUST_PROXY', 'ALLOW_HTTP', 'JWT_SECRET', 'JWT_PREVIOUS_SECRETS', 'JWT_TTL', 'SESSION_SECRET', 'MFA_ENCRYPTION_KEY', 'MFA_PREVIOUS_ENCRYPTION_KEYS', 'SESSION_IDLE_TTL', 'SESSION_ABSOLUTE_TTL',
    'CAPTCHA_VERIFY_URL', 'CAPTCHA_SECRET', 'CAPTCHA', 'SMTP_URL', 'MAIL_FROM', 'GOOGLE_CLIENT_IDS', 'GOOGLE_CERTS_URL',
    'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_ID', 'STRIPE_API_URL', 'REDIS_URL', 'WORKERS', 'INGEST_TOKEN',
    'SIGNUP_FREE_REPORTS', 'DEMO_DATA', 'LOG_LEVEL', 'CORS_ORIGINS', 'SSE_HEARTBEAT_S', 'METRICS_PORT']
  for (const name of design) t.ok(name in EnvSchema.properties, `${name} is in schemas/env.ts`)
})

t.test('TLS: a self-signed localhost certificate generated once into DATA_DIR/tls; bad files are one line', async (t) => {
  const dataDir = tempDir(t)
  const first = await loadTls({ certFile: '', keyFile: '', dataDir })
  t.equal(first.generated, true)
  t.equal(first.certFile, join(dataDir, 'tls', 'localhost.crt'))
  t.equal(statSync(join(dataDir, 'tls', 'localhost.key')).mode & 0o777, 0o600, 'the key is readable by the owner only')
  const x509 = new X509Certificate(first.cert)
  t.equal(first.fingerprint, x509.fingerprint256)
  t.match(x509.subjectAltName, /DNS:localhost/)
  t.match(x509.subjectAltName, /IP Address:127\.0\.0\.1/)
  t.ok(Date.parse(x509.validTo) > Date.now() + 365 * 86400_000, 'valid for more than a year')

  const second = await loadTls({ certFile: '', keyFile: '', dataDir })
  t.equal(second.generated, false, 'not generated again')
  t.equal(second.fingerprint, first.fingerprint, 'the same certificate on the next start')

  const configured = await loadTls({ certFile: first.certFile, keyFile: join(dataDir, 'tls', 'localhost.key'), dataDir: tempDir(t) })
  t.equal(configured.generated, false, 'TLS_CERT_FILE/TLS_KEY_FILE are used as given')
  t.equal(configured.fingerprint, first.fingerprint)

  const other = await loadTls({ certFile: '', keyFile: '', dataDir: tempDir(t) })
  const garbage = join(dataDir, 'garbage.pem')
  writeFileSync(garbage, 'not a certificate')
  const bad: Array<[{ certFile: string, keyFile: string }, RegExp]> = [
    [{ certFile: join(dataDir, 'missing.crt'), keyFile: garbage }, /^invalid configuration: TLS_CERT_FILE .*missing\.crt cannot be read \(ENOENT\)$/],
    [{ certFile: first.certFile, keyFile: join(dataDir, 'missing.key') }, /^invalid configuration: TLS_KEY_FILE .* cannot be read/],
    [{ certFile: garbage, keyFile: garbage }, /^invalid configuration: TLS_CERT_FILE .* is not a PEM certificate$/],
    [{ certFile: first.certFile, keyFile: garbage }, /^invalid configuration: TLS_KEY_FILE .* is not a PEM private key$/],
    [{ certFile: first.certFile, keyFile: join(other.certFile, '..', 'localhost.key') }, /^invalid configuration: TLS_KEY_FILE .* does not match TLS_CERT_FILE/]
  ]
  for (const [files, message] of bad) {
    await t.rejects(loadTls({ ...files, dataDir }), { constructor: ConfigError, message }, String(message))
  }
})

t.test('argon2id: OWASP\'s parameters unless told otherwise (m=19456 KiB, t=2, p=1)', async (t) => {
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: tempDir(t) })
  t.same(config.argon2, { memoryCost: 19456, timeCost: 2, parallelism: 1 })
  t.same(loadConfig({ NODE_ENV: 'test', DATA_DIR: tempDir(t), ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' }).argon2,
    { memoryCost: 1024, timeCost: 1, parallelism: 1 }, 'the tests\' cheap setting is accepted')
})
