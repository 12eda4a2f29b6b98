// POST /ingest (DESIGN 5): a data collector pushes NDJSON profile data with
// `Authorization: Bearer <INGEST_TOKEN>`. Without INGEST_TOKEN the endpoint does not exist (404).
// The body is streamed to a temporary file (at most config.ingest.bodyLimit bytes), then imported
// like `npm run import`: validated whole, written in one transaction or not at all.
import { createHash, timingSafeEqual } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { errorCodes } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../../schemas/common.ts'
import { IngestQuerySchema, IngestResultSchema } from '../../../schemas/ingest.ts'
import type { Config } from '../../config.ts'
import { BadRequest, Conflict, Unauthorized } from '../../errors.ts'
import { createIngestService, describeInvalid, IngestConflictError } from '../../services/ingest/index.ts'

export interface IngestRoutesOptions {
  config: Config
}

const NDJSON = 'application/x-ndjson'
const sha256 = (s: string) => createHash('sha256').update(s).digest()

/** copies the body to file, failing with 413 past limit bytes (the rest of the body is discarded) */
async function spool (payload: Readable, file: string, limit: number): Promise<void> {
  let received = 0
  const limiter = new Transform({
    transform (chunk: Buffer, _encoding, callback) {
      received += chunk.length
      if (received > limit) callback(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
      else callback(null, chunk)
    }
  })
  const onError = (err: Error) => limiter.destroy(err)
  payload.once('error', onError)
  payload.pipe(limiter)
  try {
    await pipeline(limiter, createWriteStream(file, { mode: 0o600 }))
  } catch (err) {
    // read and drop the rest, so that the answer can still go out on this connection
    payload.unpipe(limiter)
    payload.resume()
    throw err
  } finally {
    payload.removeListener('error', onError)
  }
}

const ingestRoutes: FastifyPluginAsyncTypebox<IngestRoutesOptions> = async (app, { config }) => {
  if (!config.ingest.token) return
  const expected = sha256(config.ingest.token)
  const limit = config.ingest.bodyLimit
  const ingest = createIngestService({ database: app.database })

  // This scope reads NDJSON only, as a stream: anything else is 415.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(NDJSON, (_request, payload, done) => done(null, payload))

  // Before the body is read. Digests have one length, so the comparison takes one time.
  app.addHook('onRequest', async (request) => {
    const m = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')
    if (!m || !timingSafeEqual(sha256(m[1]), expected)) throw new Unauthorized()
  })

  app.post('/', {
    schema: {
      tags: ['ingest'],
      security: [{ bearer: [] }],
      summary: 'Import profile data (NDJSON, one record per line; Bearer INGEST_TOKEN)',
      description: 'The whole body is validated first: with invalid lines nothing is written (400) unless skipInvalid is true. ' +
        'Records upsert, so sending the same data again changes nothing.',
      querystring: IngestQuerySchema,
      response: { 200: IngestResultSchema, ...errorResponses(400, 401, 409, 413, 415, 429, 500, 503) }
    }
  }, async (request) => {
    const body = request.body as unknown
    if (!(body instanceof Readable)) throw new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(String(request.headers['content-type'] ?? ''))
    if (Number(request.headers['content-length']) > limit) {
      body.resume()
      throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()
    }
    const dir = await mkdtemp(join(tmpdir(), 'pir-ingest-'))
    try {
      const file = join(dir, 'body.ndjson')
      await spool(body, file, limit)
      const outcome = await ingest.importFile(file, { skipInvalid: request.query.skipInvalid })
      if (!outcome.written) throw new BadRequest(describeInvalid(outcome))
      request.log.info({ imported: outcome.imported, invalid: outcome.invalid }, 'profile data ingested')
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
