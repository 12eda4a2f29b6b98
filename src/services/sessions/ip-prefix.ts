// The network a session was signed in from, coarse enough not to pin down a person (an IPv4 /24, an
// IPv6 /48: a provider's block, not a household) and precise enough to tell "my phone at home" from
// "somewhere else" on the account page.
import { isIPv4, isIPv6 } from 'node:net'

/** the 8 groups of an IPv6 address as numbers, or null */
function ipv6Groups (address: string): number[] | null {
  let text = address.toLowerCase()
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  // a trailing dotted quad (::ffff:1.2.3.4) is two groups
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (quad) {
    const [a, b, c, d] = quad[1].split('.').map(Number)
    text = text.slice(0, quad.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const missing = 8 - left.length - right.length
  if (tail === undefined ? missing !== 0 : missing < 1) return null
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((g) => parseInt(g, 16))
  return groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff) ? null : groups
}

/** "a.b.c.0/24" for IPv4 (and IPv4-mapped IPv6), "x:y:z::/48" for IPv6, null for anything else */
export function ipPrefix (address: string | undefined): string | null {
  if (!address) return null
  if (isIPv4(address)) {
    const [a, b, c] = address.split('.')
    return `${Number(a)}.${Number(b)}.${Number(c)}.0/24`
  }
  if (!isIPv6(address)) return null
  const groups = ipv6Groups(address)
  if (!groups) return null
  // ::ffff:a.b.c.d is an IPv4 client on a dual-stack socket
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.0/24`
  }
  return `${groups.slice(0, 3).map((g) => g.toString(16)).join(':')}::/48`
}

/** a User-Agent as a session row keeps it: at most 256 characters */
export function userAgentOf (value: unknown): string | null {
  return typeof value === 'string' && value ? value.slice(0, 256) : null
}
