// The document in OpenAPI 3.1, the version code generators read (docs/decisions/programs.md,
// OpenAPI document for generators): openapi-python-client refuses anything but 3.1.*, and 3.1 is
// what the others know. It is the 3.2 document with the one 3.2 field it uses moved aside: a
// stream's `itemSchema` (its events, one item each) becomes the extension `x-itemSchema` beside
// `schema: string`, so 3.1 readers see a text stream and its payload components stay referenced.
// The 3.2 document is served as well, at openapi-3.2.json.
import type { Document } from './openapi-document.ts'

export const OPENAPI_31 = '3.1.1'

type Json = Record<string, unknown>

/** a copy of the 3.2 document `doc` in OpenAPI 3.1 */
export function asOpenApi31 (doc: Document): Document {
  const out = JSON.parse(JSON.stringify(doc)) as Document
  out.openapi = OPENAPI_31
  for (const item of Object.values(out.paths)) {
    for (const op of Object.values(item)) {
      for (const response of Object.values(op.responses)) {
        for (const media of Object.values(response.content ?? {}) as Json[]) {
          if (!('itemSchema' in media)) continue
          media.schema ??= { type: 'string', description: 'the stream as text; its items are in x-itemSchema, or as itemSchema in /api/v1/openapi-3.2.json' }
          media['x-itemSchema'] = media.itemSchema
          delete media.itemSchema
        }
      }
    }
  }
  return out
}
