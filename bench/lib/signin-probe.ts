// BENCH_SIGNIN_PROBE=1: loaded into the measured service of scenario 3 (node --import), it writes to
// the service's log, every 5 s: the argon2 verifications finished and the most in flight at once;
// how long a one-iteration pbkdf2, a job of the same libuv thread pool, waits for a thread (what any
// other asynchronous crypto, fs, dns or zlib call of a sign-in waits); and the event loop's delay.
// It wraps argon2.verify on the module object the service shares; the service has no such code.
// (Per-request figures through AsyncLocalStorage were tried: the store does not survive the
// database driver's promises, so they are not reported.)
import { pbkdf2 } from 'node:crypto'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import argon2 from 'argon2'

const sums = { verified: 0, inVerifyMax: 0, pool: 0, poolN: 0, poolMax: 0 }
let inVerify = 0

const verify = argon2.verify
argon2.verify = async function (...args: Parameters<typeof verify>) {
  inVerify++
  sums.inVerifyMax = Math.max(sums.inVerifyMax, inVerify)
  try {
    return await verify(...args)
  } finally {
    inVerify--
    sums.verified++
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
  process.stderr.write(`signin-probe ${JSON.stringify({
    verified: sums.verified,
    inVerifyMax: sums.inVerifyMax,
    poolProbes: sums.poolN,
    poolWaitMs: f(sums.pool / (sums.poolN || 1)),
    poolWaitMaxMs: f(sums.poolMax),
    loopDelayP50Ms: f(loop.percentile(50) / 1e6),
    loopDelayP99Ms: f(loop.percentile(99) / 1e6)
  })}\n`)
  Object.assign(sums, { verified: 0, inVerifyMax: inVerify, pool: 0, poolN: 0, poolMax: 0 })
  loop.reset()
}, 5000).unref()
