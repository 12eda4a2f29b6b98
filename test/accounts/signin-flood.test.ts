// Sign-in under a flood: argon2 jobs are handed to libuv's thread pool at most ARGON2_CONCURRENCY at a
// time (UV_THREADPOOL_SIZE - 1 by default), so other asynchronous work always finds a thread.
// Shown by counting what the password service hands to the pool, and by the order things finish in,
// never by timing.
import t from '../tap.ts'
import { pbkdf2 } from 'node:crypto'
import { build, GOOD_PASSWORD, registeredUser } from '../helper.ts'
import { FAST_ARGON2 } from './support.ts'
import { ipv4, ROOMY, signinFrom } from '../limits/support.ts'
import { createJobGate } from '../../src/services/limits/job-gate.ts'

const ACCOUNTS = 24
// sign-up allows a few accounts an hour per address; these tests make more from one
const ROOMIER = { ...ROOMY, RATE_LIMIT_SIGNUP_IP: '100000' }

t.test('a burst of sign-ins of distinct accounts: never more than the bound in the pool, all signed in', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, ...ROOMIER })
  t.equal(app.config.argon2Concurrency, 3, 'UV_THREADPOOL_SIZE unset (libuv\'s pool of 4): 3')
  const accounts = []
  for (let i = 0; i < ACCOUNTS; i++) accounts.push(await registeredUser(app))
  const passwords = app.services.passwords
  const before = passwords.verifications

  let answered = 0
  const answers = Promise.all(accounts.map(async ({ email }, i) => {
    const res = await signinFrom(app, ipv4(i + 1), email, GOOD_PASSWORD)
    answered++
    return res
  }))
  // a job of the same thread pool, started once every verification is waiting: it finds a free thread
  // instead of queueing behind all of them
  await new Promise((resolve) => setImmediate(resolve))
  const poolJob = new Promise<number>((resolve, reject) => pbkdf2('x', 'y', 1, 8, 'sha256', (err) => err ? reject(err) : resolve(answered)))
  const seen: number[] = []
  const sample = setInterval(() => seen.push(passwords.pool.running), 1)
  const results = await answers
  clearInterval(sample)

  t.equal(passwords.verifications - before, ACCOUNTS, 'one verification per sign-in')
  t.ok(results.every((r) => r.statusCode === 200 && r.json().status === 'success'), 'every sign-in succeeded')
  t.ok(passwords.pool.peak <= 3, `at most 3 argon2 jobs in the pool at once (peak ${passwords.pool.peak})`)
  t.ok(seen.every((n) => n <= 3), 'sampled while the burst ran, never above the bound')
  t.same({ running: passwords.pool.running, waiting: passwords.pool.waiting }, { running: 0, waiting: 0 }, 'nothing left behind')
  t.ok(await poolJob < ACCOUNTS / 2, 'the other pool job finished before most of the sign-ins: it did not wait behind every hash')
})

// Hashes that cost what a real one costs in proportion to the rest of a sign-in: at the suite's cheapest
// setting a hash is shorter than the database work after it (on PostgreSQL most of all), so every
// waiting sign-in could be claimed before the first one is answered, and the order below said nothing.
const COSTLIER_ARGON2 = { ARGON2_MEMORY_KIB: '8192', ARGON2_TIME_COST: '2' }

t.test('a burst of sign-ins: at most four times the bound claimed ahead of their hash, the first answered before the last is claimed', async (t) => {
  const app = await build(t, { ...COSTLIER_ARGON2, ...ROOMIER })
  const accounts = []
  for (let i = 0; i < ACCOUNTS * 3 / 2; i++) accounts.push(await registeredUser(app))
  const passwords = app.services.passwords

  let waitingAtFirstAnswer = -1
  const seen: number[] = []
  const sample = setInterval(() => seen.push(passwords.attempts.running), 1)
  const results = await Promise.all(accounts.map(async ({ email }, i) => {
    const res = await signinFrom(app, ipv4(i + 1), email, GOOD_PASSWORD)
    if (waitingAtFirstAnswer < 0) waitingAtFirstAnswer = passwords.attempts.waiting
    return res
  }))
  clearInterval(sample)

  t.ok(results.every((r) => r.statusCode === 200 && r.json().status === 'success'), 'every sign-in succeeded')
  t.ok(passwords.attempts.peak <= 12, `at most 12 sign-ins between their claim and the end of their hash (peak ${passwords.attempts.peak})`)
  t.ok(seen.every((n) => n <= 12), 'sampled while the burst ran, never above it')
  t.ok(waitingAtFirstAnswer > 0, `the first sign-in was answered while ${waitingAtFirstAnswer} others had not yet been claimed: its work after the hash did not wait for theirs`)
  t.same({ running: passwords.attempts.running, waiting: passwords.attempts.waiting }, { running: 0, waiting: 0 }, 'nothing left behind')
})

t.test('attempts refused by the backoff and wrong passwords leave their slot too', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, ...ROOMIER })
  const { email } = await registeredUser(app)
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => signinFrom(app, ipv4(i + 1), email, 'wrong password')))
  t.ok(answers.every((r) => r.statusCode === 200 || r.statusCode === 429), 'wrong password or backoff, nothing else')
  t.same({ running: app.services.passwords.attempts.running, waiting: app.services.passwords.attempts.waiting }, { running: 0, waiting: 0 })
  const ok = await signinFrom(app, ipv4(99), (await registeredUser(app)).email, GOOD_PASSWORD)
  t.equal(ok.json().status, 'success', 'a sign-in after them goes through')
})

t.test('the bound follows UV_THREADPOOL_SIZE, or ARGON2_CONCURRENCY when set', async (t) => {
  const small = await build(t, { ...FAST_ARGON2, ...ROOMIER, UV_THREADPOOL_SIZE: '1' })
  t.equal(small.config.argon2Concurrency, 1, 'a pool of one thread: still one hash at a time')
  const accounts = []
  for (let i = 0; i < 6; i++) accounts.push(await registeredUser(small))
  await Promise.all(accounts.map(({ email }, i) => signinFrom(small, ipv4(i + 1), email, 'wrong password')))
  t.equal(small.services.passwords.pool.peak, 1, 'one at a time')

  const set = await build(t, { ...FAST_ARGON2, ARGON2_CONCURRENCY: '7', UV_THREADPOOL_SIZE: '16' })
  t.equal(set.config.argon2Concurrency, 7)
})

t.test('the job gate: FIFO, bounded, a failing job gives its slot back', async (t) => {
  t.throws(() => createJobGate(0), RangeError)
  const gate = createJobGate(2)
  const order: number[] = []
  const releases: Array<() => void> = []
  const jobs = Array.from({ length: 6 }, (_, i) => gate.run(() => new Promise<number>((resolve, reject) => {
    order.push(i)
    releases.push(() => (i === 1 ? reject(new Error('boom')) : resolve(i)))
  })))
  const settling = Promise.allSettled(jobs)
  await new Promise((resolve) => setImmediate(resolve))
  t.has({ running: gate.running, waiting: gate.waiting, order }, { running: 2, waiting: 4, order: [0, 1] })
  while (releases.length) {
    releases.shift()!()
    await new Promise((resolve) => setImmediate(resolve))
    t.ok(gate.running <= 2)
  }
  const settled = await settling
  t.same(order, [0, 1, 2, 3, 4, 5], 'started in arrival order')
  t.equal(settled[1].status, 'rejected', 'the failure reaches its caller')
  t.same(settled.filter((s) => s.status === 'fulfilled').length, 5)
  t.has({ running: gate.running, waiting: gate.waiting, peak: gate.peak }, { running: 0, waiting: 0, peak: 2 })
})

t.test('the job gate: a long queue (its head moves, it is compacted)', async (t) => {
  const gate = createJobGate(1)
  let n = 0
  await Promise.all(Array.from({ length: 5000 }, () => gate.run(async () => { n++ })))
  t.equal(n, 5000)
  t.has({ running: gate.running, waiting: gate.waiting, peak: gate.peak }, { running: 0, waiting: 0, peak: 1 })
})
