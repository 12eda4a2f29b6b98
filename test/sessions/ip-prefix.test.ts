// The network a session row records: an IPv4 /24 or an IPv6 /48, never the address itself.
import t from '../tap.ts'
import { ipPrefix, userAgentOf } from '../../src/services/sessions/ip-prefix.ts'

t.test('IPv4 /24, IPv6 /48, IPv4-mapped IPv6 as IPv4, anything else null', async (t) => {
  t.equal(ipPrefix('203.0.113.77'), '203.0.113.0/24')
  t.equal(ipPrefix('10.1.2.3'), '10.1.2.0/24')
  t.equal(ipPrefix('2001:db8:1234:5678::1'), '2001:db8:1234::/48')
  t.equal(ipPrefix('2001:0db8:0000:5678:9abc:def0:1234:5678'), '2001:db8:0::/48')
  t.equal(ipPrefix('::1'), '0:0:0::/48')
  t.equal(ipPrefix('fe80::1%eth0'), 'fe80:0:0::/48', 'a zone is dropped')
  t.equal(ipPrefix('::ffff:198.51.100.9'), '198.51.100.0/24', 'an IPv4 client on a dual-stack socket')
  t.equal(ipPrefix('64:ff9b::198.51.100.9'), '64:ff9b:0::/48', 'a NAT64 address is IPv6')
  t.equal(ipPrefix(''), null)
  t.equal(ipPrefix(undefined), null)
  t.equal(ipPrefix('not an address'), null)
})

t.test('a User-Agent is kept to 256 characters', async (t) => {
  t.equal(userAgentOf('curl/8.0'), 'curl/8.0')
  t.equal(userAgentOf('x'.repeat(1000))!.length, 256)
  t.equal(userAgentOf(undefined), null)
  t.equal(userAgentOf(''), null)
})
