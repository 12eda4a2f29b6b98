// A session's User-Agent as a person reads it on the account page: "Chrome on Linux". The header is
// parsed with bowser, a maintained parser, not with patterns of our own: browsers change their
// User-Agent strings, and a parser's releases follow them. It is named when the list is read, not
// stored at sign-in, so a newer parser names the sessions already open too.
import Bowser from 'bowser'

/** "Chrome on Linux", "Safari on iOS", "Firefox"; null when the User-Agent names no known browser or system */
export function deviceName (userAgent: string | null): string | null {
  if (!userAgent) return null
  const parser = Bowser.getParser(userAgent)
  const browser = parser.getBrowserName()
  const os = parser.getOSName()
  if (browser && os) return `${browser} on ${os}`
  if (browser) return browser
  if (os) return `A browser on ${os}`
  return null
}
