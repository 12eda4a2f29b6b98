// The baseline of scenario 8: the same rows as the NDJSON import, loaded with COPY ... FROM STDIN
// from one file per table, in one transaction (as the import is), by its own process.
// argv: DATABASE_URL, then a JSON array of {table, columns, file}. Prints {ms} as JSON.
import { createReadStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import postgres from 'postgres'

const [url, spec] = process.argv.slice(2)
const tables = JSON.parse(spec) as Array<{ table: string, columns: string[], file: string }>
const sql = postgres(url, { max: 1, onnotice: () => {} })
const t0 = performance.now()
await sql.begin(async (tx) => {
  for (const t of tables) {
    const writable = await tx.unsafe(`copy ${t.table} (${t.columns.join(', ')}) from stdin`).writable()
    await pipeline(createReadStream(t.file), writable)
  }
})
const ms = performance.now() - t0
await sql.end({ timeout: 5 })
process.stdout.write(JSON.stringify({ ms }) + '\n')
