// The client as a per-IP rate limit sees it. An IPv4 address is itself; an IPv6 address is its /64,
// the smallest block a provider hands one subscriber (RFC 6177): counting per full address would give
// whoever holds a /64 2^64 fresh budgets. An IPv4-mapped IPv6 address (::ffff:a.b.c.d, what a
// dual-stack socket reports for an IPv4 peer) is the IPv4 address, so one client has one key.
import { isIPv6 } from 'node:net'

const MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i

/** the eight 16-bit groups of an IPv6 address (an embedded IPv4 tail as its two groups), or null */
function groups (address: string): number[] | null {
  let text = address
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text)
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number)
    text = text.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const missing = 8 - left.length - right.length
  if (missing < 0 || (tail === undefined && missing !== 0)) return null
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => parseInt(g, 16))
}

/** the per-IP key of a client address: IPv4 as is, IPv6 as `<first four groups>::/64` */
export function clientKey (ip: string): string {
  if (!ip.includes(':')) return ip
  const mapped = MAPPED.exec(ip)
  if (mapped) return mapped[1]
  // a zone (fe80::1%eth0) names the interface, not the client
  const address = ip.split('%')[0]
  if (!isIPv6(address)) return ip
  const g = groups(address)
  if (!g) return ip
  // ::ffff:c000:201, the mapped form written in hex
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`
  }
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`
}
