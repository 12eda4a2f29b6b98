// `npm start` as a developer runs it: the start-up lines say where the dashboard, the API docs, the
// mail outbox and the generated secrets are, and how many argon2 hashes run at once in a thread pool
// of what size (the script sets UV_THREADPOOL_SIZE before Node starts); SIGTERM sent to npm (a
// terminal closing, a process manager) stops the server too. A CLI started in a directory with a `.env` reads it.
import t from '../tap.ts'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CHEAP_ARGON2 } from '../helper.ts'
import { until } from '../peers/wait.ts'
import { childDatabase, childEnv, ROOT, tempDir } from '../foundation/support.ts'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

t.test('npm start: start-up lines name the dashboard, docs, outbox and secrets; SIGTERM to npm stops the server', async (t) => {
  const db = await childDatabase(t)
  const env = childEnv({
    ...db.env, NODE_ENV: 'development', PORT: '0', WORKERS: '0', DEMO_DATA: 'off', LOG_LEVEL: 'info', SHUTDOWN_READY_DELAY_S: '0', ...CHEAP_ARGON2
  })
  // the script's own default, whatever this shell has
  delete env.UV_THREADPOOL_SIZE
  const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  npm.stdout!.on('data', (d) => { stdout += d })
  npm.stderr!.on('data', (d) => { stderr += d })
  const exited = once(npm, 'exit')
  let serverPid = 0
  t.teardown(() => {
    if (npm.exitCode === null) npm.kill('SIGKILL')
    if (serverPid && alive(serverPid)) process.kill(serverPid, 'SIGKILL')
  })
  const logs = () => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
  const listening = await until(() => {
    if (npm.exitCode !== null) throw new Error(`npm start exited: ${stderr}`)
    return logs().find((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at '))
  }, { timeoutMs: 120_000, what: 'npm start to listen' })
  serverPid = listening.pid as number
  t.not(serverPid, npm.pid, 'the server is a process of its own')
  const port = new URL(/https:\/\/\S+/.exec(listening.msg as string)![0]).port
  // PORT=0: the port the system chose, which PUBLIC_URL (unset) follows
  const origin = `https://localhost:${port}`

  const where = await until(() => logs().find((l) => l.dashboard), { what: 'the start-up lines' })
  t.equal(where.dashboard, `${origin}/`, 'the dashboard URL: PUBLIC_URL\'s origin, which followed the chosen port')
  t.equal(where.docs, `${origin}/api/v1/docs`, 'the API docs URL')
  t.match(where.msg, `dashboard ${origin}/ and API docs ${origin}/api/v1/docs`, 'both in the message a person reads')
  t.equal(logs().find((l) => l.outbox)?.outbox, join(db.dataDir, 'outbox'), 'the mail outbox (no SMTP_URL)')
  t.equal(logs().find((l) => l.secretsFile)?.secretsFile, join(db.dataDir, 'secrets.json'), 'the generated secrets file')
  const passwords = logs().find((l) => l.threadPoolSize)
  t.same({ threadPool: passwords?.threadPoolSize, hashes: passwords?.argon2Concurrency }, { threadPool: 5, hashes: 4 },
    'npm start gives libuv a pool of 5: four hashes at once, one thread always free for other work')
  t.match(passwords?.msg, 'passwords: 4 argon2 hashes at a time in a thread pool of 5', '… said in words')

  npm.kill('SIGTERM')
  await exited
  t.ok(logs().some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'), 'npm passed SIGTERM on: the server shut down gracefully')
  await until(() => !alive(serverPid), { timeoutMs: 10_000, what: 'the server process to end' })
  t.notOk(alive(serverPid), 'no server is left serving')
})

t.test('a CLI reads .env from its working directory; the environment wins', async (t) => {
  const cwd = tempDir(t)
  const db = await childDatabase(t)
  const dataDir = join(cwd, 'from-dotenv')
  writeFileSync(join(cwd, '.env'), `DATA_DIR=${dataDir}\nDATABASE_URL=${db.url}\nNODE_ENV=production\n`)
  const tsx = fileURLToPath(import.meta.resolve('tsx'))
  const run = async (cli: string, args: string[] = []) => {
    const child = spawn(process.execPath, ['--import', tsx, join(ROOT, cli), ...args], {
      cwd,
      // NODE_ENV=test in the environment wins over the file's production (which would need secrets)
      env: childEnv({ NODE_ENV: 'test' }),
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    child.stdout!.on('data', (d) => { out += d })
    child.stderr!.on('data', (d) => { out += d })
    const [code] = await once(child, 'exit')
    return { code, out }
  }
  // the migration reads the database settings alone
  const migrate = await run('src/cli/migrate.ts')
  t.equal(migrate.code, 0, migrate.out)
  t.match(migrate.out, db.url ? /migrations applied to PostgreSQL/ : /migrations applied to the embedded database/, 'DATABASE_URL from .env')
  // promo reads the whole configuration: production would refuse it without secrets; in development
  // it keeps generated ones in DATA_DIR
  const promo = await run('src/cli/promo.ts', ['list'])
  t.equal(promo.code, 0, `NODE_ENV from the environment, not production from .env: ${promo.out}`)
  t.ok(existsSync(join(dataDir, 'secrets.json')), 'DATA_DIR from .env')
})
