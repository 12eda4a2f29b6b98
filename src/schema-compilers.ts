// Fastify's schema compilers (Ajv for requests, fast-json-stringify for answers), shared by every app
// this process builds, each schema compiled once. Fastify compiles a route's schemas when the route
// is added, per app and per route: the error answers' schemas, the same objects on every route,
// were compiled again for each route and status (over a thousand serializers for one app), and a
// process that builds many apps (the test suite builds one per test) compiled everything each time.
// The schemas are module constants (schemas/), so the object is the key, and a compiled function
// depends on nothing but its schema, the shared schemas and the options (docs/decisions/the-house.md,
// Test suite).
import { createRequire } from 'node:module'
import type { FastifyServerOptions } from 'fastify'

const require = createRequire(import.meta.url)
// Fastify's own compilers: the versions it depends on, loaded as it loads them
const fastifyRequire = createRequire(require.resolve('fastify'))
const AjvCompiler = fastifyRequire('@fastify/ajv-compiler') as () => unknown
const fastJsonStringify = createRequire(fastifyRequire.resolve('@fastify/fast-json-stringify-compiler'))('fast-json-stringify') as
  (schema: object, options: object) => unknown

type SchemaObject = Record<string, unknown>
type Serializers = WeakMap<object, unknown>

// Ajv's compiler keeps one Ajv per set of shared schemas and options, and Ajv caches a compiled
// schema by its object.
const buildValidator = AjvCompiler()

const serializerPools = new Map<string, Serializers>()
/** fast-json-stringify's compiler with a cache: one pool per set of shared schemas and options */
function buildSerializer (externalSchemas: Record<string, SchemaObject>, options: SchemaObject = {}) {
  const key = JSON.stringify(externalSchemas) + JSON.stringify(options)
  let pool = serializerPools.get(key)
  if (!pool) serializerPools.set(key, pool = new WeakMap())
  const compiled = pool
  return ({ schema }: { schema: SchemaObject }) => {
    let serializer = compiled.get(schema)
    if (serializer === undefined) {
      // as Fastify's own compiler: a schema that is itself a shared one is not given itself again
      let shared = externalSchemas
      if (typeof schema.$id === 'string' && shared?.[schema.$id]) {
        shared = { ...shared }
        delete shared[schema.$id]
      }
      serializer = fastJsonStringify(schema, { ...options, schema: shared })
      compiled.set(schema, serializer)
    }
    return serializer
  }
}

/**
 * the `schemaController` option of every app. With it Fastify counts the validator as a custom one,
 * which changes one thing: a headers schema is compiled as written instead of with its keys
 * lower-cased, so such schemas name their headers in lower case (schemas/billing.ts).
 */
export const schemaController = {
  compilersFactory: { buildValidator, buildSerializer }
} as unknown as FastifyServerOptions['schemaController']
