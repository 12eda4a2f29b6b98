// Which addresses an outbound request may connect to, and a DNS lookup that refuses the others.
// A URL the service fetches on its own (a profile image named by ingested data, later a webhook an
// account names) must not reach the service's own network: loopback, private, link-local (the cloud
// metadata address 169.254.169.254), CGNAT, multicast, unspecified or reserved ranges, in IPv4 and
// IPv6, an IPv4-mapped IPv6 address counting as the IPv4 address it carries. ipaddr.js names the
// special-purpose ranges of the IANA registries; anything it does not call `unicast` is refused, so a
// range it learns later is refused too.
// The check runs on the address the socket connects to: the lookup below is the socket's own
// (net.connect's `lookup` option), so a name that resolves to a public address when checked and to a
// private one when connected (DNS rebinding) cannot slip between two resolutions.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { OutboundRefused } from '../../errors.ts'

/** resolves a host name to its addresses (dns.lookup with all: true); tests pass their own */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>

export const systemResolver: Resolver = (hostname) => new Promise((resolve, reject) => {
  dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => err ? reject(err) : resolve(addresses))
})

// The IPv6 prefixes whose last 32 bits carry an IPv4 address that some stack or gateway may connect
// to: IPv4-compatible (::/96, deprecated, which some stacks still route to IPv4), IPv4-mapped, the
// SIIT translated form (RFC 6145) and NAT64's well-known and local-use prefixes (RFC 6052, 8215).
const EMBEDS_IPV4 = ['::/96', '::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr))

/** the IPv4 address an IPv6 address of one of those prefixes carries in its last 32 bits, else null */
function embeddedIPv4 (address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (!EMBEDS_IPV4.some((range) => address.match(range))) return null
  const [high, low] = address.parts.slice(6)
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
}

/**
 * a public unicast address; false for anything not an address. An IPv6 address that carries an IPv4
 * address is judged as that IPv4 address too (`[::7f00:1]`, `::ffff:7f00:1`, `64:ff9b::7f00:1` are
 * 127.0.0.1); an IPv4-mapped one is judged as its IPv4 address only, and the other forms must also be
 * unicast in IPv6 (NAT64 and SIIT are not: refused whatever they carry).
 */
export function isPublicAddress (address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast'
  const v6 = parsed as ipaddr.IPv6
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast'
  const carried = embeddedIPv4(v6)
  if (carried !== null && carried.range() !== 'unicast') return false
  return v6.range() === 'unicast'
}

/** the host of a URL as an address when it is one (`[::1]` -> `::1`), else null */
export function literalAddress (hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  return isIP(bare) ? bare : null
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * net.connect's `lookup`: resolves with `resolve` and hands the socket only public addresses; a name
 * with any non-public address is refused whole (a name that mixes them is not one to trust), unless
 * allowPrivate (tests).
 */
export function guardedLookup (resolve: Resolver, allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then((found) => {
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family
      const addresses = family ? found.filter((a) => a.family === family) : found
      if (addresses.length === 0) throw Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' })
      if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) throw new OutboundRefused('address not allowed')
      if (options.all) callback(null, addresses)
      else callback(null, addresses[0].address, addresses[0].family)
    }).catch((err: NodeJS.ErrnoException) => { callback(err, '') })
  }
}
