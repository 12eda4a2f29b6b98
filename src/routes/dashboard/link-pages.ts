// The pages the mailed links open (docs/decisions/accounts.md, Mailed-link pages):
// PUBLIC_URL/confirm/<secret>, PUBLIC_URL/recovery/<secret> and the alert digest's
// PUBLIC_URL/unsubscribe/<token> answer the dashboard's own index.html, whose script reads
// location.pathname, takes the secret out of the address bar and calls the API with it. Whatever
// follows the prefix gets the page, however malformed (wrong length, other characters, more
// segments, nothing at all): the page is where the person learns that the link is not valid, so a
// mangled link never ends on a JSON 404. The secret is never read here, and never logged
// (src/logger.ts). The document's security headers (CSP and the rest) come from the same hook as
// the dashboard's (src/plugins/security.ts); no-referrer keeps the secret out of any Referer,
// no-store keeps the page holding it out of every cache.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { PUBLIC_DIR } from '../../plugins/static.ts'

export interface LinkPagesOptions {
  /** the dashboard's folder (its index.html is the page) */
  root?: string
}

export const LINK_PAGE_PREFIXES = ['/confirm/', '/recovery/', '/unsubscribe/'] as const

const linkPageRoutes: FastifyPluginAsync<LinkPagesOptions> = async (app, opts) => {
  const index = join(opts.root ?? PUBLIC_DIR, 'index.html')

  // read on each request, like the static files: an edited dashboard needs no restart
  async function page (_request: unknown, reply: FastifyReply) {
    const html = await readFile(index)
    return reply
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(html)
  }

  // a wildcard, not a parameter: no maxParamLength (414) for an over-long secret, and extra segments match
  for (const prefix of LINK_PAGE_PREFIXES) app.get(`${prefix}*`, { schema: { hide: true } }, page)
}

export default linkPageRoutes
