// The pieces under every rate limit: the per-IP key (IPv6 by /64, IPv4-mapped as IPv4) and the
// in-process fixed-window counters, which a flood of fresh keys cannot empty of a live counter.
import t from '../tap.ts'
import { clientKey } from '../../src/services/limits/client-address.ts'
import { windowCounters } from '../../src/services/limits/window-counters.ts'

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

  // Full: the newcomers share one counter (limited together, conservatively); the victim keeps its own.
  const full = windowCounters(1000)
  full.hit('victim@example.com', 900_000, now)
  full.hit('victim@example.com', 900_000, now)
  let shared = 0
  for (let i = 0; i < 10_000; i++) shared = full.hit(`flood-${i}@example.com`, 900_000, now + 1).current
  t.equal(full.size, 1000, 'never more live counters than the cap')
  t.equal(full.overflowed, 9001, 'the keys that did not fit were counted together')
  t.equal(shared, 9001, 'on one shared counter, which a limit of any size refuses long before')
  t.equal(full.hit('victim@example.com', 900_000, now + 2).current, 3, 'the victim\'s count survives the flood')
  t.equal(full.hit('flood-5@example.com', 900_000, now + 2).current, 2, 'a key that found room keeps its own count')

  // Once the window has passed, the expired counters make room again.
  t.equal(full.hit('newcomer', 900_000, now + 900_001).current, 1, 'after the window, a new key has a counter of its own')
  t.equal(full.overflowed, 9001)
})
