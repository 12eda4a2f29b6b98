// Which endpoint URLs an account may register (docs/decisions/programs.md, Webhooks). Checked when
// the endpoint is created, on what the URL itself says; the address a name resolves to is checked
// when a delivery connects (src/services/outbound/addresses.ts), since a name can point elsewhere
// by then.
import { BadRequest } from '../../errors.ts'
import { isPublicAddress, literalAddress } from '../outbound/addresses.ts'

/** the URL as it is stored, or a 400 saying what is wrong with it */
export function endpointUrl (url: string, allowPrivate: boolean): string {
  let target: URL
  try { target = new URL(url) } catch { throw new BadRequest('url must be an absolute http or https URL') }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new BadRequest('url must be an absolute http or https URL')
  if (target.username || target.password) throw new BadRequest('url must not carry a user name or password')
  if (target.hash) throw new BadRequest('url must not have a fragment')
  if (allowPrivate) return target.href
  if (target.protocol !== 'https:') throw new BadRequest('url must be https')
  const host = target.hostname.toLowerCase()
  const literal = literalAddress(host)
  // names under .localhost always mean this machine (RFC 6761)
  if ((literal !== null && !isPublicAddress(literal)) || host === 'localhost' || host.endsWith('.localhost')) {
    throw new BadRequest('url must not point to a loopback, private or link-local address')
  }
  return target.href
}
