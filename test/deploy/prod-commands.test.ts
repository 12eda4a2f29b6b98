// The production commands as an operator runs them, on a build of this tree (tsc into a temporary
// tree beside package.json, drizzle/ and public/): `npm run start:prod` stopped by a SIGTERM to its
// whole process group (systemd's default for `ExecStart=npm run start:prod`), which reaches node
// twice (directly, and forwarded by npm), drains as one SIGTERM does: readiness answers 503 while
// requests are still served, none is lost, exit 0. And `npm run db:migrate:prod` whose environment
// was lost (no NODE_ENV, no DATABASE_URL) is production: it refuses with one line and makes no
// embedded database in the release tree.
import t from '../tap.ts'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { copyFileSync, existsSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { CHEAP_ARGON2 } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { childDatabase, childEnv, ROOT, tempDir } from '../foundation/support.ts'

const READY_DELAY_S = 2

/** a release tree: package.json, the runtime files and node_modules of this checkout, and dist/ built from it */
function releaseTree (t: Parameters<typeof tempDir>[0]): string {
  const tree = tempDir(t, 'pir-release-')
  copyFileSync(join(ROOT, 'package.json'), join(tree, 'package.json'))
  for (const linked of ['node_modules', 'drizzle', 'public']) symlinkSync(join(ROOT, linked), join(tree, linked))
  // --noCheck: the same files, without checking the types again (npm run typecheck does)
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(tree, 'dist'), '--noCheck'],
    { encoding: 'utf8' })
  if (tsc.status !== 0) throw new Error(`the build failed: ${tsc.stdout}${tsc.stderr}`)
  return tree
}

const tree = releaseTree(t)

t.test('npm run start:prod, SIGTERM to its process group: readiness 503 first, no request lost, exit 0', async (t) => {
  const db = await childDatabase(t, { migrated: true })
  const npm = spawn('npm', ['run', 'start:prod'], {
    cwd: tree,
    detached: true,
    env: childEnv({
      ...db.env, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', TLS: 'off', WORKERS: '0', DEMO_DATA: 'off', LOG_LEVEL: 'info',
      SHUTDOWN_READY_DELAY_S: String(READY_DELAY_S), TRUST_PROXY: 'loopback', ...CHEAP_ARGON2
    }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  npm.stdout!.on('data', (d) => { output += d })
  npm.stderr!.on('data', (d) => { output += d })
  const exited = once(npm, 'exit') as Promise<[number | null]>
  t.teardown(() => { try { process.kill(-npm.pid!, 'SIGKILL') } catch {} })
  t.teardown(() => { if (!t.passing()) t.comment(output.slice(-10_000)) })
  const logs = () => output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg?: string, pid?: number, signal?: string })
  const listening = await until(() => {
    if (npm.exitCode !== null) throw new Error(`npm run start:prod exited: ${output}`)
    return logs().find((l) => l.msg?.startsWith('Server listening at '))
  }, { timeoutMs: 120_000, what: 'start:prod to listen' })
  const origin = /http:\/\/\S+/.exec(listening.msg!)![0]
  t.not(listening.pid, npm.pid, 'node runs under npm, in npm\'s process group')

  // a balancer: sends while readiness says 200; the load's requests must all be answered
  const get = async (path: string) => {
    const res = await fetch(`${origin}/api/v1${path}`, { headers: { 'x-forwarded-proto': 'https' } })
    await res.text()
    return res.status
  }
  let routing = true
  let sawNotReady = false
  const statuses: Array<number | string> = []
  const poller = (async () => {
    while (routing) {
      try {
        const ready = await get('/health/ready')
        if (ready !== 200) {
          sawNotReady = ready === 503
          routing = false
        }
      } catch {
        routing = false
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  const clients = Array.from({ length: 3 }, async () => {
    while (routing) statuses.push(await get('/health').catch((err: Error) => String(err.cause ?? err.message)))
  })
  await until(() => statuses.length >= 20, { timeoutMs: 30_000, what: 'the load to run' })

  process.kill(-npm.pid!, 'SIGTERM')
  await poller
  await Promise.all(clients)
  t.ok(sawNotReady, 'readiness answered 503 after the SIGTERM (the drain ran)')
  t.same(statuses.filter((s) => s !== 200), [], `every one of the ${statuses.length} requests of the load was answered 200`)
  // npm's forwarded copy may reach node together with the first and merge with it: one more, to the
  // group, while the drain runs, is sure to come on its own
  process.kill(-npm.pid!, 'SIGTERM')
  await until(() => logs().some((l) => l.msg?.startsWith('SIGTERM again')), { what: 'the repeated SIGTERM to be seen' })
  t.equal(await get('/health'), 200, 'after a repeated SIGTERM, requests are still served until the drain ends')
  const [code] = await exited
  t.equal(code, 0, 'npm run start:prod exited 0')
  const lines = logs()
  t.ok(lines.some((l) => l.msg?.startsWith('draining')), 'the log says the instance drained')
  t.ok(lines.some((l) => l.msg?.startsWith('SIGTERM again')), 'the repeated SIGTERM was taken as the same request')
  t.notMatch(output, /second SIGTERM, exiting/, 'and not as "exit now"')
})

t.test('npm run db:migrate:prod with its environment lost: production, one line, no embedded database', async (t) => {
  // no NODE_ENV, no DATABASE_URL, no DATA_DIR (childEnv leaves them out)
  const res = spawnSync('npm', ['run', '--silent', 'db:migrate:prod'], { cwd: tree, env: childEnv({}), encoding: 'utf8' })
  t.equal(res.status, 1, 'it fails')
  t.equal(res.stderr.trim(), 'invalid configuration: DATABASE_URL must be set in production (a PostgreSQL URL, or embedded for the embedded database on purpose)',
    'one line saying what is missing')
  t.notOk(existsSync(join(tree, '.data')), 'no database (nor DATA_DIR) made in the release tree')
})
