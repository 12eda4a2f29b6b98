// GET /images: a profile or account image, fetched by the service and served from the same origin
// (docs/decisions/images-and-outbound-requests.md, Profile images).
import { Type, type Static } from '@sinclair/typebox'
import { INGEST_LIMITS } from './ingest.ts'

// The same bound and form as an image URL ingest accepts (schemas/ingest.ts): anything else is not stored.
export const ImageQuerySchema = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: INGEST_LIMITS.url,
    pattern: '^https?://[^\\s]+$',
    description: "an image URL as the API gives it (a profile's or an account's `image`); only URLs the service's data holds are fetched"
  })
}, { additionalProperties: false })
export type ImageQuery = Static<typeof ImageQuerySchema>

// bytes on the wire, a Buffer to the handler
const Binary = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' })

/** 200 of GET /images: the image's bytes, as the type its bytes show */
export const ImageResponseSchema = {
  description: 'the image (ETag; Cache-Control: private, max-age=31536000, immutable)',
  content: {
    'image/jpeg': { schema: Binary },
    'image/png': { schema: Binary },
    'image/gif': { schema: Binary },
    'image/webp': { schema: Binary },
    'image/avif': { schema: Binary }
  }
}
