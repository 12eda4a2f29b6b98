// GET /images?url=<image URL> (Bearer, else the session cookie: an <img> sends the cookie, not a
// header): a profile's or an account's image, fetched once by the service and served from this
// origin with a year's private cache life, since an image URL names its bytes (src/services/images/index.ts).
// Any signed-in user may load any image the data holds: the profile search shows every profile's image
// URL to every signed-in user already (docs/decisions/images-and-outbound-requests.md, Profile
// images).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../../schemas/common.ts'
import { ImageQuerySchema, ImageResponseSchema } from '../../../schemas/images.ts'
import { Unauthorized } from '../../errors.ts'

const imageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // the session cookie authenticates a browser's <img> (src/plugins/session-cookie.ts)
  await app.register(app.cookieReader)
  const { images } = app.services

  app.get('/', {
    schema: {
      operationId: 'getImage',
      tags: ['images'],
      summary: "A profile's or an account's image, served from this origin (Bearer, else the session cookie)",
      description: 'The `image` URL of a profile or account as the API gives it. The service fetches it once (https, public ' +
        'addresses only, no redirects, at most 2 MiB, JPEG, PNG, GIF, WebP or AVIF by its bytes; never SVG), keeps it, and serves ' +
        'it with an ETag and `Cache-Control: private, max-age=31536000, immutable`. 404 for a URL the data does not hold; ' +
        '502 `image unavailable` when it cannot be fetched under those rules (a failure is remembered for ten minutes).',
      security: [{ bearer: [] }, { cookie: [] }],
      querystring: ImageQuerySchema,
      response: {
        200: ImageResponseSchema,
        304: Type.Null({ description: 'If-None-Match names the image' }),
        ...errorResponses(400, 401, 403, 404, 429, 500, 502, 503)
      }
    },
    onRequest: async (request, reply) => {
      const user = await app.identify(request, reply)
      if (!user) throw new Unauthorized()
      // the global rate limit then counts this user's budget, not the address's
      request.user = user
    }
  }, async (request, reply) => {
    const image = await images.get(request.query.url)
    reply.header('etag', image.etag).header('cache-control', 'private, max-age=31536000, immutable')
    if (request.headers['if-none-match'] === image.etag) return reply.code(304).send(null)
    return reply.type(image.type).send(image.body)
  })
}

export default imageRoutes
