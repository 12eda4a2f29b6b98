// A mailed link (/confirm/<secret>, /recovery/<secret>, the alert digest's /unsubscribe/<token>) carries a secret in its path. This module
// has no imports and is the first one app.js imports, so it runs before any other module of the page:
// it moves the secret into memory and takes it out of the address bar (and so out of the history,
// bookmarks and any later Referer) before anything else can read or send the address.
const match = /^\/(confirm|recovery|unsubscribe)\/([^/?#]+)\/?$/.exec(location.pathname)

/** {kind: 'confirm'|'recovery'|'unsubscribe', secret} when the page was opened from a mailed link, else null */
export const mailedLink = match ? { kind: match[1], secret: decodeURIComponent(match[2]) } : null

if (match) history.replaceState(null, '', `/#/${match[1]}`)
