// The schemas of the OpenAPI document as code generators read them (docs/decisions/programs.md,
// OpenAPI document for generators). Only the document changes here: validation and serialization
// keep the route schemas as they are.
// - A union of single values (TypeBox `Type.Union([Type.Literal('a'), ...])`, which @fastify/swagger
//   writes as `anyOf` of one-value enums) becomes one `enum`, so a generator makes one enum type.
// - A schema with a `title` (the named shapes of schemas/*.ts) becomes the component of that name,
//   and every place it appears a `$ref` to it.

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

// keywords whose values are data, not schemas: never walked
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'example', 'examples'])

/** `{type?, enum: [v]}` and nothing else, or `{type: 'null'}`: one value of a union */
function singleValue (s: unknown): { type?: unknown, value: unknown } | undefined {
  if (!isObject(s)) return undefined
  const keys = Object.keys(s)
  if (s.type === 'null' && keys.length === 1) return { type: 'null', value: null }
  if (Array.isArray(s.enum) && s.enum.length === 1 && keys.every((k) => k === 'enum' || k === 'type')) return { type: s.type, value: s.enum[0] }
  if ('const' in s && keys.every((k) => k === 'const' || k === 'type')) return { type: s.type, value: s.const }
  return undefined
}

/** a schema's `anyOf`/`oneOf` of single values as one `enum` (in place); its other keywords stay */
function collapseUnion (s: Json): void {
  for (const combinator of ['anyOf', 'oneOf']) {
    const members = s[combinator]
    if (!Array.isArray(members) || members.length === 0 || 'enum' in s || 'type' in s) continue
    const values = members.map(singleValue)
    if (values.some((v) => v === undefined)) continue
    const types = [...new Set(values.map((v) => v!.type).filter((t) => t !== undefined))]
    delete s[combinator]
    if (types.length === 1) s.type = types[0]
    else if (types.length > 1) s.type = types
    s.enum = values.map((v) => v!.value)
  }
}

/** walks a schema bottom-up: `visit` sees each subschema after its own subschemas, and may replace it */
export function mapSchema (schema: unknown, visit: (s: Json) => Json): unknown {
  if (Array.isArray(schema)) return schema.map((s) => mapSchema(s, visit))
  if (!isObject(schema)) return schema
  const out: Json = {}
  for (const [key, value] of Object.entries(schema)) {
    out[key] = DATA_KEYWORDS.has(key) || key.startsWith('x-') ? value : mapSchema(value, visit)
  }
  return visit(out)
}

/** the document's form of a schema: `$id` and `$schema` dropped (the name is its place), unions of values as enums */
export function normalizeSchema (schema: unknown): unknown {
  return mapSchema(schema, (s) => {
    delete s.$id
    delete s.$schema
    if ('const' in s && !('enum' in s)) {
      s.enum = [s.const]
      delete s.const
    }
    collapseUnion(s)
    return s
  })
}

// @fastify/swagger moves a parameter schema's description to the parameter, and a body schema's
// examples to its media type: the same schema, told apart by these annotations alone
const bare = (s: Json) => JSON.stringify({ ...s, description: undefined, examples: undefined })
const same = (a: Json, b: Json) => bare(a) === bare(b)

export const SCHEMA_REF = '#/components/schemas/'

/**
 * Moves every titled schema of `schema` into `components` (by its title) and puts a `$ref` in its
 * place. Throws when two different schemas carry one title: one of them must be renamed.
 */
export function hoistTitled (schema: unknown, components: Record<string, unknown>): unknown {
  return mapSchema(schema, (s) => {
    if (typeof s.title !== 'string') return s
    const name = s.title
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`schema title ${JSON.stringify(name)} is not a component name`)
    const seen = components[name] as Json | undefined
    // of two forms of one schema, the one with more annotations
    if (seen === undefined || (Object.keys(s).length > Object.keys(seen).length && same(seen, s))) components[name] = s
    else if (!same(seen, s)) {
      throw new Error(`two different schemas are titled ${name}: ${JSON.stringify(seen)} and ${JSON.stringify(s)}`)
    }
    return { $ref: `${SCHEMA_REF}${name}` }
  })
}
