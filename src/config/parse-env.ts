// The environment checked against a schema of schemas/env.ts: typed values with their defaults, and
// one line for each variable the schema refuses.
import type { Static, TObject } from '@sinclair/typebox'
import envSchema from 'env-schema'
import { withoutBlanks, type Source } from './environment.ts'

interface EnvIssue { instancePath: string, message?: string }

/**
 * The variables of `schema`, and what is wrong with them. A refused variable is left out and takes
 * its default, so that the checks after this one still see every other variable and the operator
 * learns every problem in one run. Only `source` is read: env-schema's own merge of the process's variables
 * (`env: true`) would bring back the blank values `source` has dropped.
 */
export function parseEnv<S extends TObject> (schema: S, source: Source): { env: Static<S>, problems: string[] } {
  const data = withoutBlanks(source)
  try {
    return { env: envSchema<Static<S>>({ schema, data, env: false, dotenv: false }), problems: [] }
  } catch (err) {
    const issues = (err as { errors?: EnvIssue[] }).errors ?? []
    const names = [...new Set(issues.map((i) => i.instancePath.replace(/^\//, '')).filter(Boolean))]
    if (names.length === 0) return { env: envSchema<Static<S>>({ schema, data: {}, env: false, dotenv: false }), problems: [(err as Error).message.split('\n')[0]] }
    const problems = names.map((name) => describeIssue(schema, name, issues.find((i) => i.instancePath === '/' + name)))
    for (const name of names) delete data[name]
    return { env: envSchema<Static<S>>({ schema, data, env: false, dotenv: false }), problems }
  }
}

// ajv says "env/TLS must be equal to constant, env/TLS must be equal to constant, …": one line naming
// the variable and what it accepts instead. The value itself is never echoed (it may be a secret).
function describeIssue (schema: TObject, name: string, issue: EnvIssue | undefined): string {
  const property = (schema.properties as Record<string, { anyOf?: Array<{ const?: unknown }> }>)[name]
  const allowed = property?.anyOf?.map((s) => s.const)
  if (allowed?.length && allowed.every((v) => v !== undefined)) return `${name} must be one of ${allowed.join(', ')}`
  return `${name} ${issue?.message ?? 'is invalid'}`
}
