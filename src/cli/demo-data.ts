// npm run demo-data -- --seed N --out FILE [--month YYYY-MM]
// Writes the deterministic demo dataset as NDJSON (`--out -` = stdout). The same seed and month give
// the same bytes; the month defaults to the current UTC month.
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { parseArgs } from 'node:util'
import type { Writable } from 'node:stream'
import { currentMonth, demoDataLines } from '../services/demo/data.ts'

const USAGE = 'usage: npm run demo-data -- --seed N --out FILE [--month YYYY-MM]'

function fail (message: string): never {
  console.error(`${message}\n${USAGE}`)
  process.exit(2)
}

let values
try {
  values = parseArgs({ options: { seed: { type: 'string' }, out: { type: 'string' }, month: { type: 'string' } } }).values
} catch (err) {
  fail((err as Error).message)
}
const seed = Number(values.seed)
if (values.seed === undefined || !/^\d+$/.test(values.seed) || seed > 0xffffffff) fail('--seed: a whole number from 0 to 4294967295')
if (!values.out) fail('--out: the file to write (- for stdout)')
const month = values.month ?? currentMonth()
if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month) || month < '1900') fail('--month: YYYY-MM')

const out: Writable = values.out === '-' ? process.stdout : createWriteStream(values.out)
let lines = 0
let chunk = ''
for (const line of demoDataLines(seed, month)) {
  chunk += line + '\n'
  lines++
  if (chunk.length >= 64 * 1024) {
    if (!out.write(chunk)) await once(out, 'drain')
    chunk = ''
  }
}
if (out === process.stdout) {
  // stdout is never ended: just let the last chunk drain
  if (!out.write(chunk)) await once(out, 'drain')
} else {
  out.end(chunk)
  await once(out, 'finish')
}
if (values.out !== '-') console.error(`wrote ${lines} lines to ${values.out} (seed ${seed}, months ending ${month})`)
