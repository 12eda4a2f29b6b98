// BENCH_SIGNIN_PROBE=1: loaded into the measured service of scenario 3 (node --import), it writes to
// the service's log, every 5 s: the argon2 verifications finished and the most in flight at once;
// the sign-in answers sent, and how long after its hash each one left (the n-th answer against the
// n-th verification to end: sign-ins leave the gate in arrival order, so this is the time from a
// hash's end to its answer while nothing is refused); the service's database connections busy with a
// statement (sampled from pg_stat_activity every 20 ms: 10 of 10 means statements are queuing in the
// driver); how long a one-iteration pbkdf2, a job of the same libuv thread pool, waits for a thread
// (what any other asynchronous crypto, fs, dns or zlib call of a sign-in waits); and the event loop's
// delay. These figures do not depend much on the machine's load, unlike the rates.
// It wraps argon2.verify on the module object the service shares; the service has no such code.
// (Per-request figures through AsyncLocalStorage were tried: the store does not survive the
// database driver's promises, so they are not reported.)
import { pbkdf2 } from 'node:crypto'
import { channel } from 'node:diagnostics_channel'
import type { IncomingMessage } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import argon2 from 'argon2'
import postgres from 'postgres'

const sums = { verified: 0, inVerifyMax: 0, pool: 0, poolN: 0, poolMax: 0, answers: 0, afterHash: 0, afterHashMax: 0, busy: 0, busyN: 0, busyFull: 0 }
let inVerify = 0
// ends of verifications not yet matched with an answer
let ends: number[] = []
let endsHead = 0

const verify = argon2.verify
argon2.verify = async function (...args: Parameters<typeof verify>) {
  inVerify++
  sums.inVerifyMax = Math.max(sums.inVerifyMax, inVerify)
  try {
    return await verify(...args)
  } finally {
    inVerify--
    sums.verified++
    ends.push(performance.now())
  }
}

// held here: a channel nobody references can be collected with its subscribers
const responses = channel('http.server.response.finish')
responses.subscribe((message) => {
  const { request } = message as { request: IncomingMessage }
  if (request.method !== 'POST' || !request.url?.endsWith('/auth/signin')) return
  sums.answers++
  if (endsHead >= ends.length) return
  const lag = performance.now() - ends[endsHead++]
  if (endsHead > 4096) { ends = ends.slice(endsHead); endsHead = 0 }
  sums.afterHash += lag
  sums.afterHashMax = Math.max(sums.afterHashMax, lag)
})

function poolProbe () {
  const t = performance.now()
  pbkdf2('x', 'y', 1, 8, 'sha256', () => {
    const w = performance.now() - t
    sums.pool += w
    sums.poolN++
    sums.poolMax = Math.max(sums.poolMax, w)
    setTimeout(poolProbe, 100).unref()
  })
}
poolProbe()

// the service's connections (this one excluded) that are running a statement now
const url = process.env.DATABASE_URL
if (url?.startsWith('postgres')) {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const sample = async () => {
    try {
      const [row] = await sql<Array<{ busy: number }>>`select count(*)::int as busy from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
          and state in ('active', 'idle in transaction') and query not ilike 'listen%'`
      sums.busy += row.busy
      sums.busyN++
      if (row.busy >= 10) sums.busyFull++
    } catch {}
    setTimeout(() => { void sample() }, 20).unref()
  }
  void sample()
}

const loop = monitorEventLoopDelay({ resolution: 10 })
loop.enable()
const f = (x: number) => x.toFixed(1)
setInterval(() => {
  process.stderr.write(`signin-probe ${JSON.stringify({
    verified: sums.verified,
    inVerifyMax: sums.inVerifyMax,
    answers: sums.answers,
    afterHashMs: f(sums.afterHash / (sums.answers || 1)),
    afterHashMaxMs: f(sums.afterHashMax),
    dbBusy: f(sums.busy / (sums.busyN || 1)),
    dbAllBusyShare: f(sums.busyFull / (sums.busyN || 1)),
    poolProbes: sums.poolN,
    poolWaitMs: f(sums.pool / (sums.poolN || 1)),
    poolWaitMaxMs: f(sums.poolMax),
    loopDelayP50Ms: f(loop.percentile(50) / 1e6),
    loopDelayP99Ms: f(loop.percentile(99) / 1e6)
  })}\n`)
  Object.assign(sums, { verified: 0, inVerifyMax: inVerify, pool: 0, poolN: 0, poolMax: 0, answers: 0, afterHash: 0, afterHashMax: 0, busy: 0, busyN: 0, busyFull: 0 })
  loop.reset()
}, 5000).unref()
