// BENCH_SIGNIN_PROBE=1: loaded into the measured service of scenario 3 (node --import), it writes to
// the service's log, every 5 s, where a sign-in's time went: from the request's arrival to its
// argon2 verification (queued in front of the hash), the verification itself (its wait for a pool
// thread included), and from the verification's end to the answer's last byte (the account's work
// after its hash); the event loop's delay; and how long a one-iteration pbkdf2, a job of the same
// libuv thread pool, waits for a thread (what any other asynchronous crypto, fs or dns call waits).
// It wraps argon2.verify on the module object the service shares; the service has no such code.
import { AsyncLocalStorage } from 'node:async_hooks'
import { pbkdf2 } from 'node:crypto'
import { Server } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import argon2 from 'argon2'

interface Times { start: number, verifyStart?: number, verifyEnd?: number }
const als = new AsyncLocalStorage<Times>()
const sums = { n: 0, before: 0, verify: 0, after: 0, afterMax: 0, pool: 0, poolN: 0, poolMax: 0, inVerify: 0, inVerifyMax: 0 }
let inVerify = 0

const emit = Server.prototype.emit as (this: Server, event: string, ...args: unknown[]) => boolean
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
  if (event !== 'request') return emit.call(this, event, ...args)
  const times: Times = { start: performance.now() }
  const res = args[1] as NodeJS.EventEmitter
  res.once('finish', () => {
    if (times.verifyEnd === undefined || times.verifyStart === undefined) return
    const after = performance.now() - times.verifyEnd
    sums.n++
    sums.before += times.verifyStart - times.start
    sums.verify += times.verifyEnd - times.verifyStart
    sums.after += after
    sums.afterMax = Math.max(sums.afterMax, after)
  })
  return als.run(times, () => emit.call(this, event, ...args))
} as typeof Server.prototype.emit

const verify = argon2.verify
argon2.verify = async function (...args: Parameters<typeof verify>) {
  const times = als.getStore()
  if (times) times.verifyStart = performance.now()
  inVerify++
  sums.inVerifyMax = Math.max(sums.inVerifyMax, inVerify)
  try {
    return await verify(...args)
  } finally {
    inVerify--
    if (times) times.verifyEnd = performance.now()
  }
}

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

const loop = monitorEventLoopDelay({ resolution: 10 })
loop.enable()
const f = (x: number) => x.toFixed(1)
setInterval(() => {
  const n = sums.n || 1
  process.stderr.write(`signin-probe ${JSON.stringify({
    signins: sums.n,
    beforeVerifyMs: f(sums.before / n),
    verifyMs: f(sums.verify / n),
    afterVerifyMs: f(sums.after / n),
    afterVerifyMaxMs: f(sums.afterMax),
    inVerifyMax: sums.inVerifyMax,
    poolWaitMs: f(sums.pool / (sums.poolN || 1)),
    poolWaitMaxMs: f(sums.poolMax),
    loopDelayP50Ms: f(loop.percentile(50) / 1e6),
    loopDelayP99Ms: f(loop.percentile(99) / 1e6)
  })}\n`)
  Object.assign(sums, { n: 0, before: 0, verify: 0, after: 0, afterMax: 0, pool: 0, poolN: 0, poolMax: 0, inVerifyMax: inVerify })
  loop.reset()
}, 5000).unref()
