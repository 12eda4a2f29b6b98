// The container files mirror the production path CI runs (.ci/prod-smoke): no Docker engine runs
// here, so the Dockerfile and compose.yaml are parsed and every command they run is checked to be
// one that script runs (the build, the production start, the migrations, the worker), with the same
// runtime files. A change to one without the other fails here.
import t from '../tap.ts'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { ROOT } from '../foundation/support.ts'
import { genReqId } from '../../src/logger.ts'
import type { IncomingMessage } from 'node:http'

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>
// a script may set an environment variable first, keeping a value the caller already set
const ENV_PREFIX = /^(\w+)=\$\{\1:-([^}]*)\} /
/** a package.json script as a process runs it without npm: its words, environment prefix and `exec` dropped */
const command = (name: string) => scripts[name].replace(ENV_PREFIX, '').replace(/^exec /, '').split(' ')
/** the environment a script sets before node starts, with the values it gives when the caller set none */
const scriptEnv = (name: string) => {
  const m = ENV_PREFIX.exec(scripts[name])
  return m ? { [m[1]]: m[2] } : {}
}

interface Instruction { stage: string, op: string, args: string }

/** Dockerfile instructions with their stage (FROM ... AS name), continuation lines joined */
function dockerfile (text: string): Instruction[] {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
  let stage = ''
  return lines.map((line) => {
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(line)!
    if (op.toUpperCase() === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? ''
    return { stage, op: op.toUpperCase(), args }
  })
}

/** what .ci/prod-smoke runs: the package.json scripts it starts, its shell commands, its runtime files */
function smoke () {
  const text = read('.ci/prod-smoke')
  const started = [...text.matchAll(/^start_and_stop (\S+)/gm), ...text.matchAll(/\$\(script (\S+)\)/g)].map((m) => m[1])
  const runtimeFiles = /^RUNTIME_FILES="([^"]+)"/m.exec(text)![1].split(' ')
  return { text, scripts: new Set(started), runtimeFiles }
}

t.test('CI runs the production path', async (t) => {
  const ci = read('.ci/run')
  const s = smoke()
  t.match(ci, /^\.ci\/prod-smoke$/m, '.ci/run runs .ci/prod-smoke on the machine\'s Node')
  t.match(ci, /PATH="\$node24:\$PATH" \.ci\/prod-smoke/, '… and on Node 24')
  for (const name of ['db:migrate:prod', 'start:prod', 'worker:prod', 'import:prod', 'promo:prod']) {
    t.ok(s.scripts.has(name), `prod-smoke runs ${name}`)
    t.match(command(name).join(' '), /^node (--\S+ )*dist\/src\/\S+\.js$/, `${name} is node on dist/, no npm or tsx at run time`)
  }
  t.match(s.text, /npm ci --prefer-offline[^\n]*&& npm run build/, 'the build stage: npm ci, npm run build')
  t.match(s.text, /npm ci --omit=dev/, 'the runtime stage: npm ci --omit=dev')
  t.match(s.text, /kill -TERM "\$pid"/, 'SIGTERM stops each long-running process')
  t.match(s.text, /\/api\/v1\/health\/ready/, 'the server is ready when /api/v1/health/ready answers 200')
  const runHere = /^RUN_HERE="([^"]+)"/m.exec(s.text)![1].split(' ')
  t.same([...runHere].sort(), [...s.scripts].sort(), 'the scripts it gives .ci/doc-commands are the ones it runs')
  t.match(s.text, /^start_and_stop start:prod .* server_ready draining$/m, 'after SIGTERM the server drains: readiness 503, the dashboard still served')
})

t.test('the commands of docs/operations.md and docs/load-testing.md resolve where the docs run them', async (t) => {
  // a production tree as the prune leaves it, for what .ci/doc-commands looks at: package.json, the
  // files the :prod scripts run, and a node_modules without tsx or autocannon
  const pruned = mkdtempSync(join(tmpdir(), 'pir-doc-commands-'))
  t.teardown(() => rmSync(pruned, { recursive: true, force: true }))
  cpSync(join(ROOT, 'package.json'), join(pruned, 'package.json'))
  mkdirSync(join(pruned, 'node_modules', '.bin'), { recursive: true })
  for (const name of Object.keys(scripts).filter((n) => n.endsWith(':prod'))) {
    const file = command(name).find((w) => w.startsWith('dist/'))!
    mkdirSync(dirname(join(pruned, file)), { recursive: true })
    writeFileSync(join(pruned, file), '')
  }
  const runHere = /^RUN_HERE="([^"]+)"/m.exec(read('.ci/prod-smoke'))![1].split(' ')
  const res = spawnSync(join(ROOT, '.ci/doc-commands'), [ROOT, pruned, ...runHere], { encoding: 'utf8' })
  t.equal(res.status, 0, res.stdout.split('\n').filter((l) => !l.startsWith('ok ')).join('\n'))
  t.match(res.stdout, /^ok {3}docs\/operations\.md:\d+: npm run db:migrate:prod \(the pruned production tree\)$/m)
  t.match(res.stdout, /^ok {3}docs\/load-testing\.md:\d+: npx autocannon .*\(a development checkout\)$/m)
})

t.test('Dockerfile: the same build, the same runtime files, node as PID 1, non-root, a readiness probe', async (t) => {
  const all = dockerfile(read('Dockerfile'))
  const s = smoke()
  const froms = all.filter((i) => i.op === 'FROM')
  t.same(froms.map((i) => i.stage), ['build', 'runtime'], 'two stages: build and runtime')
  for (const from of froms) t.match(from.args, /^node:24-(bookworm-)?slim\b/, `${from.stage} is Node 24 slim`)

  const build = all.filter((i) => i.stage === 'build')
  t.same(build.filter((i) => i.op === 'RUN').map((i) => i.args), ['npm ci --no-audit --no-fund', 'npm run build'],
    'build stage: npm ci (every dependency) and npm run build, as prod-smoke')

  const runtime = all.filter((i) => i.stage === 'runtime')
  const runs = runtime.filter((i) => i.op === 'RUN').map((i) => i.args)
  t.ok(runs.some((r) => r.startsWith('npm ci --omit=dev ')), 'runtime stage: npm ci --omit=dev')
  const copies = runtime.filter((i) => i.op === 'COPY')
  const local = copies.filter((i) => !i.args.startsWith('--from')).flatMap((i) => i.args.split(/\s+/).slice(0, -1))
  t.same(local.sort(), [...s.runtimeFiles].sort(), 'runtime stage copies exactly prod-smoke\'s RUNTIME_FILES')
  t.same(copies.filter((i) => i.args.startsWith('--from')).map((i) => i.args), ['--from=build /app/dist ./dist'], '… and dist/ from the build stage')
  // npm ci's postinstall applies patches/ (patch-package): each stage has them before its npm ci
  for (const stage of [build, runtime]) {
    const at = (re: RegExp) => stage.findIndex((i) => re.test(`${i.op} ${i.args}`))
    t.ok(at(/^COPY patches /) !== -1 && at(/^COPY patches /) < at(/^RUN npm ci /), `${stage[0].stage} stage: patches/ before npm ci`)
  }

  const cmd = runtime.filter((i) => i.op === 'CMD')
  t.equal(cmd.length, 1)
  t.same(JSON.parse(cmd[0].args), command('start:prod'), 'CMD is start:prod in exec form: node is PID 1, SIGTERM reaches it')
  // libuv reads UV_THREADPOOL_SIZE once, before the service's first line: the image sets what the
  // script sets, in ENV (an exec-form CMD has no shell to set it)
  const env = runtime.filter((i) => i.op === 'ENV').flatMap((i) => [...i.args.matchAll(/(\w+)=(\S+)/g)]).map((m) => [m[1], m[2]])
  const expected = scriptEnv('start:prod')
  t.same(Object.keys(expected), ['UV_THREADPOOL_SIZE'], 'start:prod sets libuv\'s thread pool')
  t.same(Object.fromEntries(env.filter(([k]) => k in expected)), expected, 'the image\'s ENV sets the same thread pool')
  t.same(scriptEnv('start'), expected, '… as npm start does')

  const user = runtime.filter((i) => i.op === 'USER').map((i) => i.args)
  t.equal(user.length, 1)
  t.not(user[0], 'root', 'a non-root user')
  t.notOk(runtime.some((i) => i.op === 'USER' && /^(root|0)$/.test(i.args)))

  const health = runtime.find((i) => i.op === 'HEALTHCHECK')!
  t.ok(health, 'a HEALTHCHECK')
  const probe = JSON.parse(/\bCMD\s+(\[.*\])$/.exec(health.args)![1]) as string[]
  t.equal(probe[0], 'node', 'the probe is node (no curl in a slim image)')
  t.match(probe.join(' '), /\/api\/v1\/health\/ready/, 'on /api/v1/health/ready')
  t.match(probe.join(' '), /x-forwarded-proto':'https'/, 'saying HTTPS, as the load balancer does')

  const ignored = read('.dockerignore').split('\n')
  for (const entry of ['node_modules', 'dist', '.env', '.data', '.git']) t.ok(ignored.includes(entry), `.dockerignore leaves out ${entry}`)
})

interface Service {
  build?: unknown, image?: string, command?: string[], environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }>, networks?: unknown, volumes?: string[]
  stop_grace_period?: string, healthcheck?: { disable?: boolean }
  read_only?: boolean, tmpfs?: string[], cap_drop?: string[], security_opt?: string[], mem_limit?: string
}

/** a compose duration ("20s", "1m30s") in seconds */
function seconds (duration: string): number {
  let total = 0
  for (const [, n, unit] of duration.matchAll(/(\d+)(h|m|s)/g)) total += Number(n) * { h: 3600, m: 60, s: 1 }[unit as 'h' | 'm' | 's']
  return total
}

t.test('compose.yaml: PostgreSQL, Redis, a migration, two web instances behind nginx, one worker, all on CI\'s commands', async (t) => {
  const compose = parseYaml(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> }
  const services = compose.services
  const s = smoke()
  const appImage = services.web1.image
  const app = Object.entries(services).filter(([, svc]) => svc.build !== undefined || svc.image === appImage)
  t.same(app.map(([name]) => name).sort(), ['migrate', 'web1', 'web2', 'worker'], 'four services run the image of ./Dockerfile')
  const expected: Record<string, string> = { migrate: 'db:migrate:prod', web1: 'start:prod', web2: 'start:prod', worker: 'worker:prod' }
  for (const [name, svc] of app) {
    // no command: the image's CMD, which is start:prod (checked above)
    const runs = svc.command ?? command('start:prod')
    t.same(runs, command(expected[name]), `${name} runs ${expected[name]}`)
    t.ok(s.scripts.has(expected[name]), '… which prod-smoke runs')
    t.equal(svc.environment?.NODE_ENV, 'production')
    t.equal(svc.environment?.TLS, 'off', 'TLS ends at the load balancer')
    t.match(svc.environment?.DATABASE_URL, /^postgres:\/\/[^@]+@postgres:5432\//, 'on the postgres service')
    t.equal(svc.environment?.REDIS_URL, 'redis://redis:6379')
  }
  t.equal(services.web1.environment?.WORKERS, '0', 'web instances leave report jobs to the worker')
  t.equal(services['app-role'].depends_on?.migrate.condition, 'service_completed_successfully', 'the application role is granted what the migration made')
  t.equal(services.web1.depends_on?.['app-role'].condition, 'service_completed_successfully', 'web starts after the migration and the grants')
  t.equal(services.worker.depends_on?.['app-role'].condition, 'service_completed_successfully', 'the worker too')
  t.match(services.postgres.image, /^postgres:/)
  t.match(services.redis.image, /^redis:/)

  const lb = services.lb
  t.match(lb.image, /^nginx:/)
  const lbAddress = (lb.networks as { backend: { ipv4_address: string } }).backend.ipv4_address
  t.same(services.web1.environment?.TRUST_PROXY.split(','), ['loopback', lbAddress], 'TRUST_PROXY: the load balancer and the health probe')
  const mounted = lb.volumes!.find((v) => v.endsWith(':/etc/nginx/nginx.conf:ro'))!.split(':')[0]
  const nginx = read(mounted)
  t.match(nginx, /server web1:8080\b/, 'nginx sends to web1')
  t.match(nginx, /server web2:8080\b/, '… and web2')
  t.match(nginx, /X-Forwarded-Proto \$scheme/, 'and says which scheme the client used')
  t.match(nginx, /proxy_buffering off/, 'SSE is not buffered')
  t.equal(services.web1.environment?.PORT, '8080')
})

t.test('compose.yaml: a roll one web instance at a time, stops that outlast the drain, no probe the worker cannot answer', async (t) => {
  const compose = parseYaml(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> }
  const services = compose.services
  const env = read('.env.example')
  const readyDelay = Number(/^SHUTDOWN_READY_DELAY_S=(\d+)$/m.exec(env)![1])
  for (const name of ['web1', 'web2']) {
    const grace = seconds(services[name].stop_grace_period ?? '10s')
    t.ok(grace > readyDelay + 10, `${name}: docker waits ${grace} s before SIGKILL, more than the drain (${readyDelay} s) and the close (10 s)`)
  }
  t.ok(seconds(services.worker.stop_grace_period ?? '10s') > 10, 'the worker: more than its 10 s close')
  t.same(services.worker.healthcheck, { disable: true }, 'the worker does not inherit the image\'s probe of a port it does not listen on')

  // the roll, as compose.yaml's header and docs/operations.md give it: each web instance recreated
  // alone and waited for (healthy) before the next, after the migration
  const roll = (text: string) => [...text.matchAll(/docker compose (run --rm migrate|up -d --no-deps --wait (web\d)|up -d --no-deps worker)/g)].map((m) => m[2] ?? m[1])
  const expected = ['run --rm migrate', 'web1', 'web2', 'up -d --no-deps worker']
  t.same(roll(read('compose.yaml')), expected, 'compose.yaml names the roll: migrate, web1 then web2 (each waited for), the worker')
  t.same(roll(read('docs/operations.md')), expected, '… and docs/operations.md the same')
  t.same(Object.keys(services).filter((n) => /^web\d$/.test(n)).sort(), ['web1', 'web2'], 'the roll names every web instance')
})

t.test('deploy/nginx.conf: a request id upstream, retries of refused connections, instances found again after a roll', async (t) => {
  const nginx = read('deploy/nginx.conf')
  const locations = [...nginx.matchAll(/location \S+ \{([^}]*)\}/g)].map((m) => m[1])
  t.equal(locations.length, 2, 'two locations: the API and the streams')
  for (const body of locations) {
    t.match(body, /proxy_set_header X-Request-ID \$request_id;/, 'each passes nginx\'s request id upstream, which the service keeps (32 hex digits)')
    t.notMatch(body, /proxy_next_upstream\s+off/, 'a refused connection is tried on the other instance')
  }
  t.match(nginx, /log_format \w+ [^;]*\$request_id/, 'and writes it to its own log')
  const nginxId = '0123456789abcdef0123456789abcdef'
  t.equal(genReqId({ headers: { 'x-request-id': nginxId } } as unknown as IncomingMessage), nginxId, 'the service keeps an id of nginx\'s form as the request\'s own')
  t.match(nginx, /^\s*resolver 127\.0\.0\.11\b/m, 'Docker\'s DNS resolves the instances again')
  t.match(nginx, /^\s*zone \w+ \d+k;/m, 'the upstream has the shared zone resolve needs')
  for (const name of ['web1', 'web2']) t.match(nginx, new RegExp(`server ${name}:8080 resolve\\b`), `${name} is resolved at run time, not once at start`)
})

t.test('compose.yaml: the instances connect as a role that owns nothing, on a locked-down container', async (t) => {
  const compose = parseYaml(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> }
  const services = compose.services
  const user = (svc: Service) => /^postgres:\/\/([^:]+):/.exec(svc.environment!.DATABASE_URL)![1]
  t.equal(user(services.migrate), 'pir', 'the migration runs as the owner')
  for (const name of ['web1', 'web2', 'worker']) t.equal(user(services[name]), 'pir_app', `${name} connects as pir_app`)
  const role = services['app-role'] as Service & { command: string[] }
  t.match(role.command.join(' '), /psql .*-f \/deploy\/app-role\.sql/, 'app-role runs deploy/app-role.sql')
  const sql = read('deploy/app-role.sql')
  t.match(sql, /CREATE ROLE pir_app LOGIN/, 'which creates pir_app')
  t.match(sql, /REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON audit_events FROM pir_app/, '… without write access to the audit trail')
  t.notMatch(sql, /GRANT [^;]*(SUPERUSER|CREATEROLE|OWNER)/i, '… nor anything an owner has')
  for (const name of ['migrate', 'app-role', 'web1', 'web2', 'worker']) {
    const svc = services[name]
    t.equal(svc.read_only, true, `${name}: a read-only root filesystem`)
    t.same(svc.cap_drop, ['ALL'], `${name}: every capability dropped`)
    t.same(svc.security_opt, ['no-new-privileges:true'], `${name}: no privilege gained through setuid`)
    t.match(svc.mem_limit, /^\d+[mg]$/, `${name}: a memory limit`)
  }
  for (const name of ['web1', 'web2', 'worker']) {
    t.ok(services[name].tmpfs?.some((m) => m.startsWith(`${services[name].environment!.DATA_DIR}:`)), `${name}: DATA_DIR is a tmpfs, the one place it writes`)
  }
})

t.test('deploy/nginx.conf: the access log masks the secrets of mailed links', async (t) => {
  const nginx = read('deploy/nginx.conf')
  const format = /log_format pir ([^;]*);/.exec(nginx)![1]
  t.notMatch(format, /\$request\b(?!_)|\$request_uri|\$args|\$query_string/, 'no raw request line, URI or query in the log')
  t.match(format, /\$pir_logged_path/, 'the masked path instead')
  const [, pattern, replacement] = /map \$uri \$pir_logged_path \{\s*~(\S+)\s+"([^"]+)";/.exec(nginx)!
  const masked = (path: string) => {
    const m = new RegExp(pattern).exec(path)
    return m ? replacement.replace('$kept', m.groups!.kept) : path
  }
  const secret = 'c2VjcmV0LXNlY3JldC1zZWNyZXQ'
  for (const path of [`/confirm/${secret}`, `/recovery/${secret}`, `/unsubscribe/${secret}`, `/api/v1/alerts/mail/unsubscribe/${secret}`]) {
    t.notMatch(masked(path), secret, `${path.split('/').slice(0, -1).join('/')}/<secret> is logged without it (${masked(path)})`)
  }
  t.equal(masked('/api/v1/report/123'), '/api/v1/report/123', 'other paths are logged as they are')
})
