// One line -> one checked record, or the reason it is not one. Everything a line can get wrong on
// its own is caught here; references to other records are checked by validate.ts.
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import type { TSchema } from '@sinclair/typebox'
import type { ValueError } from '@sinclair/typebox/errors'
import { INGEST_RECORD_SCHEMAS, RECORD_TYPES, type IngestRecord, type RecordType } from '../../../schemas/ingest.ts'

const checkers = Object.fromEntries(
  RECORD_TYPES.map((type) => [type, TypeCompiler.Compile(INGEST_RECORD_SCHEMAS[type] as TSchema)])
) as Record<RecordType, TypeCheck<TSchema>>

export type Parsed = { record: IngestRecord, reason?: undefined } | { record?: undefined, reason: string }

const quote = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s)

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** a YYYY-MM-DD that names a day of the calendar (and that PostgreSQL accepts: year 1 or later) */
export function isRealDate (s: string): boolean {
  const y = Number(s.slice(0, 4))
  const m = Number(s.slice(5, 7))
  const d = Number(s.slice(8, 10))
  if (y < 1 || m < 1 || m > 12 || d < 1) return false
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  return d <= (m === 2 && leap ? 29 : DAYS[m - 1])
}

// PostgreSQL text cannot hold NUL, and a lone surrogate has no UTF-8 form.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

function unstorableField (record: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(record)) {
    const values = Array.isArray(value) ? value : [value]
    for (const v of values) if (typeof v === 'string' && UNSTORABLE.test(v)) return key
  }
  return undefined
}

function explain (schema: Record<string, unknown>, value: unknown): string {
  const anyOf = schema.anyOf as Record<string, unknown>[] | undefined
  if (anyOf) {
    const consts = anyOf.map((s) => s.const)
    if (consts.every((c) => typeof c === 'string')) return `must be one of ${consts.join(', ')}`
    const str = anyOf.find((s) => s.type === 'string')
    if (str && typeof value === 'string') return explain(str, value)
    return 'must be a string or null'
  }
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be a string'
      if (value.length < ((schema.minLength as number) ?? 0)) return 'must not be empty'
      if (value.length > ((schema.maxLength as number) ?? Infinity)) return `longer than ${schema.maxLength as number} characters`
      return schema.description ? `must be ${schema.description as string}` : 'is invalid'
    }
    case 'boolean': return 'must be true or false'
    case 'array': {
      if (!Array.isArray(value)) return 'must be an array'
      if (value.length > ((schema.maxItems as number) ?? Infinity)) return `more than ${schema.maxItems as number} items`
      return 'has duplicates'
    }
  }
  return 'is invalid'
}

function describe (error: ValueError, record: Record<string, unknown>): string {
  const parts = error.path.split('/').slice(1)
  if (error.message === 'Unexpected property') return `unknown field ${quote(parts.join('.'))}`
  if (parts.length === 1 && record[parts[0]] === undefined) return `missing field ${quote(parts[0])}`
  return `${parts.join('.') || 'record'}: ${explain(error.schema as Record<string, unknown>, error.value)}`
}

/** null for a blank line */
export function parseRecord (text: string): Parsed | null {
  if (!text.trim()) return null
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { reason: 'broken JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { reason: 'not a JSON object' }
  const record = value as Record<string, unknown>
  const type = record.type
  if (type === undefined) return { reason: 'missing field "type"' }
  if (typeof type !== 'string' || !(RECORD_TYPES as readonly string[]).includes(type)) {
    return { reason: `unknown record type ${typeof type === 'string' ? quote(type) : JSON.stringify(type).slice(0, 60)}` }
  }
  const checker = checkers[type as RecordType]
  if (!checker.Check(record)) return { reason: describe(checker.Errors(record).First()!, record) }
  const bad = unstorableField(record)
  if (bad) return { reason: `${bad}: contains a NUL character or broken Unicode` }
  const checked = record as IngestRecord
  if (checked.type === 'follow') {
    if (!isRealDate(checked.since)) return { reason: `since: ${quote(checked.since)} is not a real date` }
    if (checked.until != null) {
      if (!isRealDate(checked.until)) return { reason: `until: ${quote(checked.until)} is not a real date` }
      if (checked.until < checked.since) return { reason: 'until is before since' }
    }
  }
  if (checked.type === 'friend' && checked.a === checked.b) return { reason: 'a friend of itself (a equals b)' }
  return { record: checked }
}
