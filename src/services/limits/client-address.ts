// The client as a per-IP rate limit sees it. An IPv4 address is itself; an IPv6 address is its /64,
// the smallest block a provider hands one subscriber (RFC 6177): counting per full address would give
// whoever holds a /64 2^64 fresh budgets. An IPv4-mapped IPv6 address (::ffff:a.b.c.d, what a
// dual-stack socket reports for an IPv4 peer) is the IPv4 address, so one client has one key. A /48
// is one site (RFC 6177 again) and holds 65,536 /64s: once one is seen using many of them, it is
// counted as one client (clientAddresses below).
import { randomBytes } from 'node:crypto'
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

const HOUR = 3600_000

/** MurmurHash3's finalizer: every bit of the result depends on every bit of `h` */
function mix (h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/** distinct /64s of one /48 in one window that make it a flood: bits set in its map */
export const PREFIX_FLOOD_SUBNETS = 64
const MAP_WORDS = 8 // 256 bits

interface Prefix {
  /** which /64s were seen this window, each hashed to one of 256 bits */
  seen: number[]
  bits: number
  resetAt: number
  /** counted as one client until then */
  floodUntil: number
}

export interface ClientAddresses {
  /** the per-IP key: clientKey's, or the /48 of a /64 whose /48 floods (`<first three groups>::/48`) */
  keyOf: (ip: string, now?: number) => string
  /** /48s tracked now (at most `maxPrefixes`) */
  readonly size: number
  /** times a /48 was found flooding since start */
  readonly floods: number
  /** addresses counted by their /48 because no room was left to track it, since start */
  readonly untracked: number
}

/**
 * The per-IP keys of one app. IPv4 is counted per address and IPv6 per /64, as clientKey says, until
 * PREFIX_FLOOD_SUBNETS distinct /64s of one /48 are seen within `windowMs`: then, for `windowMs`, every
 * address of that /48 is one client (docs/decisions/limits.md, In-process counters under a flood of
 * keys). The /64s seen are kept as a 256-bit map per /48, a bit per hashed /64: a bit is set only
 * by a /64 not seen before, so a /48 is never taken for a flood with fewer distinct /64s than the
 * threshold, and the secret mixed into the hash keeps anyone from choosing /64s that share bits. At
 * most `maxPrefixes` /48s are tracked, each dropped when its window has passed; past that a /48 not
 * tracked is one client until there is room again.
 */
export function clientAddresses (maxPrefixes: number, windowMs = HOUR): ClientAddresses {
  const prefixes = new Map<string, Prefix>()
  const secret = randomBytes(4).readUInt32LE(0)
  let floods = 0
  let untracked = 0

  /** drops up to `limit` expired /48s from the front, restarting the window of a flood still held */
  function sweep (now: number, limit: number) {
    for (const [key, prefix] of prefixes) {
      if (prefix.resetAt > now || limit-- <= 0) break
      prefixes.delete(key)
      if (prefix.floodUntil > now) prefixes.set(key, restart(prefix, now))
    }
  }

  function restart (prefix: Prefix, now: number): Prefix {
    prefix.seen.fill(0)
    prefix.bits = 0
    prefix.resetAt = now + windowMs
    return prefix
  }

  /** the /48 of a /64 that was just seen: whether it floods */
  function flooding (net48: string, subnet: number, now: number): boolean {
    let prefix = prefixes.get(net48)
    if (prefix !== undefined && prefix.resetAt <= now) {
      prefixes.delete(net48)
      prefix = prefix.floodUntil > now ? restart(prefix, now) : undefined
      if (prefix !== undefined) prefixes.set(net48, prefix)
    }
    if (prefix === undefined) {
      sweep(now, prefixes.size >= maxPrefixes ? Infinity : 2)
      // Full: as many /48s are live as the stores have room for keys, so a flood of sites is under
      // way. A site not tracked is one client, as an IPv4 address is: coarser, never shared.
      if (prefixes.size >= maxPrefixes) {
        untracked++
        return true
      }
      prefix = { seen: Array<number>(MAP_WORDS).fill(0), bits: 0, resetAt: now + windowMs, floodUntil: 0 }
      prefixes.set(net48, prefix)
    }
    const bit = mix(subnet ^ secret) >>> 24
    const word = bit >> 5
    const mask = 1 << (bit & 31)
    if ((prefix.seen[word] & mask) === 0) {
      prefix.seen[word] |= mask
      if (++prefix.bits === PREFIX_FLOOD_SUBNETS) {
        if (prefix.floodUntil <= now) floods++
        prefix.floodUntil = now + windowMs
      }
    }
    return prefix.floodUntil > now
  }

  return {
    // an IPv4 address is returned before anything else is done: the cost of most requests' key
    keyOf (ip, now) {
      if (!ip.includes(':')) return ip
      const key = clientKey(ip)
      if (!key.endsWith('::/64')) return key
      const cut = key.lastIndexOf(':', key.length - 6)
      const net48 = key.slice(0, cut)
      return flooding(net48, parseInt(key.slice(cut + 1, -5), 16), now ?? Date.now()) ? `${net48}::/48` : key
    },
    get size () { return prefixes.size },
    get floods () { return floods },
    get untracked () { return untracked }
  }
}
