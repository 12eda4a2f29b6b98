// The pieces under every rate limit: the per-IP key (IPv6 by /64, by /48 while one floods, IPv4-mapped
// as IPv4) and the in-process fixed-window counters, which a flood of fresh keys cannot empty of a
// live counter and which count the keys past their cap in a sketch of fixed size.
import t from '../tap.ts'
import { clientAddresses, clientKey, PREFIX_FLOOD_SUBNETS } from '../../src/services/limits/client-address.ts'
import { windowCounters } from '../../src/services/limits/window-counters.ts'
import { countMinSketch, sketchWidth } from '../../src/services/limits/count-min-sketch.ts'

t.test('clientKey: IPv4 as is, IPv6 by /64, IPv4-mapped IPv6 as IPv4', async (t) => {
  t.equal(clientKey('192.0.2.1'), '192.0.2.1')
  t.equal(clientKey('::ffff:192.0.2.1'), '192.0.2.1', 'a dual-stack socket\'s IPv4 peer')
  t.equal(clientKey('::FFFF:c000:0201'), '192.0.2.1', 'the mapped form in hex')
  const net = clientKey('2001:db8:1:2::1')
  t.equal(net, '2001:db8:1:2::/64')
  t.equal(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), net, 'the other end of the same /64')
  t.equal(clientKey('2001:0DB8:0001:0002:0000:0000:0000:0001'), net, 'written in full, in capitals')
  t.not(clientKey('2001:db8:1:3::1'), net, 'the next /64 is another client')
  t.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64', 'a zone names an interface, not a client')
  t.equal(clientKey('::1'), '0:0:0:0::/64')
  t.equal(clientKey('not an address'), 'not an address', 'anything else is kept as it is')
})

t.test('window counters: a fixed window per key, dropped only once it has passed', async (t) => {
  const c = windowCounters(1000)
  let now = 1_000_000
  t.same(c.hit('a', 60_000, now), { current: 1, ttl: 60_000 })
  now += 10_000
  t.same(c.hit('a', 60_000, now), { current: 2, ttl: 50_000 }, 'the same window')
  now += 50_000
  t.same(c.hit('a', 60_000, now), { current: 1, ttl: 60_000 }, 'a new window once it has passed')

  // one limiter has one window length, so its counters expire in the order they were opened
  const d = windowCounters(1000)
  for (let i = 0; i < 10; i++) d.hit(`k${i}`, 1000, now)
  now += 1000
  for (let i = 0; i < 10; i++) d.hit(`n${i}`, 1000, now)
  t.equal(d.size, 10, 'expired counters are swept as new keys arrive')
})

t.test('10,000 distinct keys do not reset a victim\'s count', async (t) => {
  const now = 5_000_000
  const roomy = windowCounters(100_000)
  roomy.hit('victim@example.com', 900_000, now)
  roomy.hit('victim@example.com', 900_000, now)
  for (let i = 0; i < 10_000; i++) roomy.hit(`flood-${i}@example.com`, 900_000, now + 1)
  t.equal(roomy.hit('victim@example.com', 900_000, now + 2).current, 3, 'with room for all: the victim\'s third hit is its third')
  t.equal(roomy.overflowed, 0)
  t.equal(roomy.sketchCells, 0, 'a store that never fills allocates no sketch')
})

t.test('100,000 distinct keys on a full store: counted in a fixed-size sketch that refuses the flooding keys and lets fresh ones through', async (t) => {
  const WINDOW = 900_000
  const MAX = 10 // RATE_LIMIT_SIGNIN_EMAIL's default
  const now = 5_000_000
  const full = windowCounters(1000)
  full.hit('victim@example.com', WINDOW, now)
  full.hit('victim@example.com', WINDOW, now)
  // the keys that find room open their windows a moment before the sketch opens its own
  for (let i = 0; i < 100_000; i++) full.hit(`flood-${i}@example.com`, WINDOW, i < 999 ? now : now + 1)
  t.equal(full.size, 1000, 'never more exact counters than the cap')
  t.equal(full.overflowed, 99_001, 'the keys that did not fit were counted in the sketch')
  const cells = full.sketchCells
  t.equal(cells, 4 * 65536, 'four rows of the least width')
  t.equal(full.hit('victim@example.com', WINDOW, now + 2).current, 3, 'the victim\'s count survives the flood')
  t.equal(full.hit('flood-5@example.com', WINDOW, now + 2).current, 2, 'a key that found room keeps its own count')

  // Fresh keys: a shared counter would have given each 99,002; the sketch gives each about its own.
  let worst = 0
  for (let i = 0; i < 1000; i++) worst = Math.max(worst, full.hit(`fresh-${i}@example.com`, WINDOW, now + 3).current)
  t.ok(worst <= MAX, `a thousand fresh keys' first hits are all within the limit (the highest estimate: ${worst})`)

  // Flooding keys: an estimate is never below the count, so each is refused by its (MAX + 1)th hit.
  let refused = 0
  for (let i = 50_000; i < 50_100; i++) {
    let current = 0
    for (let n = 2; n <= MAX + 1; n++) {
      current = full.hit(`flood-${i}@example.com`, WINDOW, now + 4).current
      if (current < n) t.fail(`flood-${i}: an estimate below its count (${current} < ${n})`)
    }
    if (current > MAX) refused++
  }
  t.equal(refused, 100, 'every key sent past its limit is refused')

  // A second flood of the same size takes no more memory.
  for (let i = 0; i < 100_000; i++) full.hit(`again-${i}@example.com`, WINDOW, now + 5)
  t.equal(full.size, 1000, 'the exact counters stay at the cap')
  t.equal(full.sketchCells, cells, 'the sketch keeps its size')

  // The exact counters expire before the sketch's window: a key counted in the sketch keeps its count
  // when room is made for it, and anything else starts at one.
  const later = now + WINDOW
  t.ok(full.hit('flood-50000@example.com', WINDOW, later).current > MAX + 1, 'a flooding key carries its count into an exact counter')
  t.equal(full.size, 1, 'the expired exact counters were dropped')
  t.ok(full.hit('flood-50000@example.com', WINDOW, later).current > MAX + 2, 'and goes on counting there')
  // past the sketch's window too, every count starts again
  const afterAll = now + 2 * WINDOW + 2
  t.equal(full.hit('flood-50001@example.com', WINDOW, afterAll).current, 1, 'after both windows, a new count')
  t.equal(full.hit('victim@example.com', WINDOW, afterAll).current, 1)
})

t.test('count-min sketch: never below the count, reset with its window, only power-of-two widths', async (t) => {
  t.throws(() => countMinSketch(1000), RangeError)
  t.equal(sketchWidth(1000), 65536, 'at least 65,536 cells a row')
  t.equal(sketchWidth(100_000), 131072, 'and at least as many as the exact counters')
  t.equal(sketchWidth(10_000_000), 1 << 20, 'up to 16 MB a limiter')
  const s = countMinSketch(1024) // narrow, so that keys share cells
  const now = 1_000
  const counts = new Map<string, number>()
  for (let i = 0; i < 20_000; i++) {
    const key = `k${i % 3000}`
    const count = (counts.get(key) ?? 0) + 1
    counts.set(key, count)
    const estimate = s.hit(key, 60_000, now)
    if (estimate < count) t.fail(`${key}: ${estimate} < ${count}`)
  }
  t.ok(s.live(now), 'its window runs')
  t.ok(s.estimate('k1', now) >= counts.get('k1')!, 'estimate() agrees')
  t.equal(s.estimate('k1', now + 60_000), 0, 'nothing once the window has passed')
  t.notOk(s.live(now + 60_000))
  t.equal(s.hit('k1', 60_000, now + 60_000), 1, 'the next hit opens a new window')
})

/** the address ::1 of the /64 number `subnet` of the /48 number `site` under 2001:db8::/32 */
const v6 = (site: number, subnet: number) => `2001:db8:${site.toString(16)}:${subnet.toString(16)}::1`

t.test('client addresses: a /48 seen with many /64s in one window is one client, for that window', async (t) => {
  const HOUR = 3600_000
  const now = 10_000_000
  const a = clientAddresses(1000)
  t.equal(a.keyOf('192.0.2.1', now), '192.0.2.1', 'IPv4 as is')
  t.equal(a.keyOf('::ffff:192.0.2.1', now), '192.0.2.1', 'IPv4-mapped as IPv4')
  t.equal(a.keyOf('not an address', now), 'not an address')

  // fewer distinct /64s than the threshold can never make a flood, whatever the hash
  for (let i = 0; i < PREFIX_FLOOD_SUBNETS - 1; i++) {
    for (let again = 0; again < 3; again++) t.equal(a.keyOf(v6(1, i), now), `2001:db8:1:${i.toString(16)}::/64`)
  }
  t.equal(a.floods, 0, `${PREFIX_FLOOD_SUBNETS - 1} /64s of one /48, each seen three times, are still ${PREFIX_FLOOD_SUBNETS - 1} clients`)

  // a thousand are a flood: from then on every address of the /48 is one client
  for (let i = 0; i < 1000; i++) a.keyOf(v6(2, i), now)
  t.equal(a.floods, 1)
  t.equal(a.keyOf(v6(2, 5000), now + 1), '2001:db8:2::/48', 'a /64 not seen before counts as its /48')
  t.equal(a.keyOf(v6(2, 0), now + 1), '2001:db8:2::/48', 'and one seen before as well')
  t.equal(a.keyOf(v6(3, 0), now + 1), '2001:db8:3:0::/64', 'the next /48 is not part of it')
  t.equal(a.keyOf(v6(1, 0), now + 1), '2001:db8:1:0::/64', 'nor the quiet one')

  // The flood is held for a window; a window without one ends it.
  t.equal(a.keyOf(v6(2, 0), now + HOUR - 1), '2001:db8:2::/48', 'held to the end of the window')
  t.equal(a.keyOf(v6(2, 0), now + HOUR + 1), '2001:db8:2:0::/64', 'a window later, quiet, it is per /64 again')
})

t.test('client addresses: memory stays bounded under 100,000 /48s', async (t) => {
  const now = 20_000_000
  const a = clientAddresses(1000)
  for (let i = 0; i < 100_000; i++) a.keyOf(`2001:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}:1::1`, now)
  t.equal(a.size, 1000, 'never more /48s tracked than the cap')
  t.equal(a.keyOf(v6(9, 9), now), '2001:db8:9::/48', 'while it is full, a /48 not tracked is one client, as an IPv4 address is')
  t.equal(a.untracked, 99_001, 'the flood\'s /48s past the cap, and this one')
  t.equal(a.keyOf(v6(9, 9), now + 3600_000), '2001:db8:9:9::/64', 'once the window has passed, there is room again')
  t.equal(a.size, 1)
  t.equal(a.keyOf('192.0.2.9', now), '192.0.2.9')
})

t.test('100,000 requests from distinct /64s across 100 /48s: the flooding /48s are refused, a fresh IPv4 client is not', async (t) => {
  const WINDOW = 60_000
  const MAX = 30 // RATE_LIMIT_SIGNIN_IP's default
  const now = 30_000_000
  const a = clientAddresses(1000)
  const signinIp = windowCounters(1000)
  const hit = (ip: string, at: number) => signinIp.hit(`signin-ip:${a.keyOf(ip, at)}`, WINDOW, at).current
  let admitted = 0
  for (let i = 0; i < 100_000; i++) if (hit(v6(0x100 + (i % 100), Math.floor(i / 100)), now) <= MAX) admitted++
  t.equal(a.floods, 100, 'every /48 is found flooding')
  // each /48 gets its threshold's worth of /64s (a few more where two share a bit) and then one budget
  t.ok(admitted < 100 * (4 * PREFIX_FLOOD_SUBNETS + MAX), `the flood gets a few budgets per /48, not one per /64 (${admitted} of 100,000 admitted)`)
  t.ok(signinIp.size <= 1000, 'the exact counters stay within their cap')
  for (let site = 0x100; site < 0x100 + 100; site++) {
    if (hit(v6(site, 0xfffe), now + 1) <= MAX) t.fail(`the /48 number ${site} was admitted again`)
  }
  t.equal(hit('192.0.2.77', now + 1), 1, 'a fresh IPv4 client\'s first request is its first')
  t.ok(hit(v6(0x9999, 1), now + 1) <= MAX, 'so is a fresh IPv6 client\'s in another /48')
})
