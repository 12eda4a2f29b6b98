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

/** a public unicast address (an IPv4-mapped IPv6 address judged as its IPv4 address); false for anything not an address */
export function isPublicAddress (address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  return ipaddr.process(address).range() === 'unicast'
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
