// The report dashboard (public/): plain HTML, CSS and ES modules, served at `/`.
// wildcard:false registers one route per file found at start-up instead of a catch-all `/*`, so an
// unknown path (notably under /api/v1) still reaches the app's not-found handler and its
// GeneralError JSON. The files are not fingerprinted: browsers revalidate them (ETag) on each load.
import { createRequire } from 'node:module'
import { dirname, join, sep } from 'node:path'
import fp from 'fastify-plugin'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { fromPackageRoot } from '../package-root.ts'

export const PUBLIC_DIR = fromPackageRoot('public') + sep

// The browser half of the WebAuthn library the server uses (@simplewebauthn/browser), served from the
// installed package as it is: its ES module build, which the dashboard imports from /vendor/simplewebauthn/.
// The package exports no folder, so its CommonJS entry is resolved and the build beside it served.
export const WEBAUTHN_BROWSER_DIR = join(dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')), '..', 'esm') + sep

// The QR encoder (uqr: no dependency, an ES module build) that draws the authenticator key's QR code
// on the account page, served the same way from /vendor/uqr/ (docs/decisions/accounts.md, Second
// factors).
export const QR_BROWSER_DIR = dirname(createRequire(import.meta.url).resolve('uqr')) + sep

export interface StaticOptions {
  root?: string
}

async function staticPlugin (app: FastifyInstance, opts: StaticOptions) {
  await app.register(fastifyStatic, {
    root: opts.root ?? PUBLIC_DIR,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    decorateReply: false,
    cacheControl: true,
    maxAge: 0,
    serveDotFiles: false
  })
  await app.register(fastifyStatic, {
    root: WEBAUTHN_BROWSER_DIR,
    prefix: '/vendor/simplewebauthn/',
    wildcard: false,
    // its .d.ts and source maps are no use to the page
    allowedPath: (path) => path.endsWith('.js'),
    decorateReply: false,
    cacheControl: true,
    maxAge: 0,
    serveDotFiles: false
  })
  await app.register(fastifyStatic, {
    root: QR_BROWSER_DIR,
    prefix: '/vendor/uqr/',
    wildcard: false,
    // its CommonJS build and type declarations are no use to the page
    allowedPath: (path) => path.endsWith('.mjs'),
    decorateReply: false,
    cacheControl: true,
    maxAge: 0,
    serveDotFiles: false
  })
}

export default fp(staticPlugin, { name: 'static', dependencies: ['errors', 'security'] })
