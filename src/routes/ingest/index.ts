// POST /ingest (docs/architecture.md, Profile data and ingest): a data collector pushes NDJSON profile data with
// `Authorization: Bearer <INGEST_TOKEN>`. Without INGEST_TOKEN it answers every request 404, before
// anything else; the route is registered all the same, so the OpenAPI document is one document
// whatever the configuration, and a client generated against any deployment has the operation.
// The body is streamed to a temporary file (at most config.ingest.bodyLimit bytes), then imported
// like `npm run import`: validated whole, written in one transaction or not at all. A gzip body
// (Content-Encoding: gzip) is decompressed as it streams, and the limit holds for what it inflates
// to as well as for what was sent: a small body that inflates without end is refused on the way.
import { createHash, timingSafeEqual } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { errorCodes } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../../schemas/common.ts'
import { IngestQuerySchema, IngestResultSchema } from '../../../schemas/ingest.ts'
import type { Config } from '../../config.ts'
import { BadRequest, Conflict, IngestConflictError, notFound, Unauthorized, UnsupportedEncoding } from '../../errors.ts'
import { createIngestService, describeInvalid } from '../../services/ingest/index.ts'

export interface IngestRoutesOptions {
  config: Config
}

const NDJSON = 'application/x-ndjson'
const sha256 = (s: string) => createHash('sha256').update(s).digest()

/** passes at most limit bytes, failing with 413 past them */
function limiter (limit: number): Transform {
  let received = 0
  return new Transform({
    transform (chunk: Buffer, _encoding, callback) {
      received += chunk.length
      if (received > limit) callback(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
      else callback(null, chunk)
    }
  })
}

/** the request's Content-Encoding: gzip, or none; anything else is refused */
function encodingOf (header: string | undefined): 'gzip' | undefined {
  const coding = (header ?? '').trim().toLowerCase()
  if (coding === '' || coding === 'identity') return undefined
  if (coding === 'gzip' || coding === 'x-gzip') return 'gzip'
  throw new UnsupportedEncoding(`unsupported content encoding ${JSON.stringify(coding.slice(0, 40))} (gzip or none)`)
}

/**
 * Copies the body to file, decompressed when it is gzip, failing with 413 past limit bytes sent or
 * inflated (the rest of the body is discarded) and with 400 on a body that is not gzip after all.
 */
async function spool (payload: Readable, file: string, limit: number, gzip: boolean): Promise<void> {
  const sent = limiter(limit)
  const stages: Transform[] = gzip ? [createGunzip(), limiter(limit)] : []
  const onError = (err: Error) => sent.destroy(err)
  payload.once('error', onError)
  payload.pipe(sent)
  try {
    await pipeline([sent, ...stages, createWriteStream(file, { mode: 0o600 })])
  } catch (err) {
    // read and drop the rest, so that the answer can still go out on this connection
    payload.unpipe(sent)
    payload.resume()
    // zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR for a cut-off stream) are the client's bytes
    if (gzip && /^Z_/.test(String((err as { code?: unknown }).code))) throw new BadRequest('the body is not valid gzip')
    throw err
  } finally {
    payload.removeListener('error', onError)
  }
}

const ingestRoutes: FastifyPluginAsyncTypebox<IngestRoutesOptions> = async (app, { config }) => {
  const token = config.ingest.token
  const expected = sha256(token)
  const limit = config.ingest.bodyLimit
  const ingest = createIngestService({ database: app.database })

  // This scope reads NDJSON only, as a stream: anything else is 415.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(NDJSON, (_request, payload, done) => done(null, payload))

  // Before the body is read. Digests have one length, so the comparison takes one time.
  app.addHook('onRequest', async (request) => {
    if (!token) throw notFound()
    const m = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')
    if (!m || !timingSafeEqual(sha256(m[1]), expected)) throw new Unauthorized()
  })

  app.post('/', {
    // the body is streamed and counted by spool(); the route's limit tells an `Expect: 100-continue`
    // client its answer before it sends (src/plugins/body-limits.ts)
    bodyLimit: limit,
    schema: {
      operationId: 'ingestFeed',
      tags: ['ingest'],
      security: [{ bearer: [] }],
      summary: 'Import profile data (NDJSON, one record per line; Bearer INGEST_TOKEN)',
      description: 'The whole body is validated first: with invalid lines nothing is written (400) unless skipInvalid is true. ' +
        'Records upsert by their key (id; a follow by profileId and accountId; a friendship by its unordered pair), ' +
        'and a record whose key came earlier in the body replaces it: the last one wins, and sending the same data again changes nothing. ' +
        'The answer counts what was inserted, updated and unchanged per record type. ' +
        'A body may be sent with `Content-Encoding: gzip`; the body limit holds for its decompressed size too (413), ' +
        'a body that is not valid gzip is 400, another content coding 415. ' +
        'A deployment without INGEST_TOKEN answers every request 404: it takes no feed.',
      querystring: IngestQuerySchema,
      response: { 200: IngestResultSchema, ...errorResponses(400, 401, 404, 409, 413, 415, 429, 500, 503) }
    }
  }, async (request) => {
    const body = request.body as unknown
    if (!(body instanceof Readable)) throw new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(String(request.headers['content-type'] ?? ''))
    let gzip
    try {
      gzip = encodingOf(request.headers['content-encoding'])
      if (Number(request.headers['content-length']) > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()
    } catch (err) {
      body.resume()
      throw err
    }
    const dir = await mkdtemp(join(tmpdir(), 'pir-ingest-'))
    try {
      const file = join(dir, 'body.ndjson')
      await spool(body, file, limit, gzip === 'gzip')
      const outcome = await ingest.importFile(file, { skipInvalid: request.query.skipInvalid })
      if (!outcome.written) throw new BadRequest(describeInvalid(outcome))
      request.log.info({ imported: outcome.imported, replaced: outcome.replaced, invalid: outcome.invalid }, 'profile data ingested')
      return outcome
    } catch (err) {
      if (err instanceof IngestConflictError) throw new Conflict(err.message)
      throw err
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
}

export default ingestRoutes
