// The report dashboard (public/): plain HTML, CSS and ES modules, served at `/`.
// wildcard:false registers one route per file found at start-up instead of a catch-all `/*`, so an
// unknown path (notably under /api/v1) still reaches the app's not-found handler and its
// GeneralError JSON. The files are not fingerprinted: browsers revalidate them (ETag) on each load.
import { sep } from 'node:path'
import fp from 'fastify-plugin'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { fromPackageRoot } from '../package-root.ts'

export const PUBLIC_DIR = fromPackageRoot('public') + sep

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
}

export default fp(staticPlugin, { name: 'static', dependencies: ['errors', 'security'] })
