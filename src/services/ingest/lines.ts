// NDJSON line sources that can be read more than once (the import streams its input once per pass).
// Lines are split on the byte level, so an over-long line is dropped as it streams instead of being
// buffered whole, and bad UTF-8 is caught per line.
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'

export interface Line {
  /** 1-based physical line number */
  no: number
  /** the text without its line break, or null when the line cannot be read (see error) */
  text: string | null
  error?: string
  /** bytes of the input consumed up to and including this line */
  offset: number
}

export interface LineSource {
  /** the lines, a batch at a time (a promise per chunk, not per line, keeps a large input cheap) */
  open: () => AsyncIterable<Line[]>
  /** input size in bytes, for progress (0 when unknown) */
  totalBytes: number
}

const NEWLINE = 0x0a
const CR = 0x0d

// fatal: bad bytes are an invalid line, not silently replaced; each decode() call stands alone
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function decodeLine (buf: Buffer, no: number, offset: number): Line {
  const end = buf.length && buf[buf.length - 1] === CR ? buf.length - 1 : buf.length
  try {
    let text = decoder.decode(buf.subarray(0, end))
    if (no === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    return { no, text, offset }
  } catch {
    return { no, text: null, error: 'not valid UTF-8', offset }
  }
}

/** splits a byte stream into lines of at most maxBytes (longer lines come out as errors), a batch per chunk */
export async function * splitLines (chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Line[]> {
  let pending: Buffer[] = []
  let pendingBytes = 0
  let overlong = false
  let no = 0
  let offset = 0
  const take = (last: Buffer): Line => {
    no++
    let line: Line | undefined
    if (!overlong) {
      const buf = pending.length ? Buffer.concat([...pending, last]) : last
      const length = buf.length && buf[buf.length - 1] === CR ? buf.length - 1 : buf.length
      if (length <= maxBytes) line = decodeLine(buf, no, offset)
    }
    pending = []
    pendingBytes = 0
    overlong = false
    return line ?? { no, text: null, error: `line longer than ${maxBytes} bytes`, offset }
  }
  for await (const chunk of chunks) {
    const batch: Line[] = []
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start)
      if (nl === -1) {
        const rest = chunk.subarray(start)
        offset += rest.length
        // +1 leaves room for a CR before the newline
        if (!overlong && pendingBytes + rest.length > maxBytes + 1) {
          overlong = true
          pending = []
          pendingBytes = 0
        }
        if (!overlong) {
          pending.push(rest)
          pendingBytes += rest.length
        }
        break
      }
      offset += nl + 1 - start
      batch.push(take(chunk.subarray(start, nl)))
      start = nl + 1
    }
    if (batch.length) yield batch
  }
  if (pendingBytes || overlong) yield [take(Buffer.alloc(0))]
}

export async function fileSource (path: string, maxLineBytes: number): Promise<LineSource> {
  const { size } = await stat(path)
  return {
    totalBytes: size,
    open: () => splitLines(createReadStream(path, { highWaterMark: 256 * 1024 }), maxLineBytes)
  }
}

/** lines produced by a (re-runnable) generator, e.g. the demo dataset */
export function textSource (lines: () => Iterable<string> | AsyncIterable<string>, maxBytes: number): LineSource {
  return {
    totalBytes: 0,
    open: async function * () {
      let no = 0
      let offset = 0
      let batch: Line[] = []
      for await (const text of lines()) {
        const bytes = Buffer.byteLength(text)
        offset += bytes + 1
        no++
        batch.push(bytes > maxBytes ? { no, text: null, error: `line longer than ${maxBytes} bytes`, offset } : { no, text, offset })
        if (batch.length === 1000) {
          yield batch
          batch = []
        }
      }
      if (batch.length) yield batch
    }
  }
}
