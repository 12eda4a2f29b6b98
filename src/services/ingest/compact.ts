// Compact bookkeeping for the validation pass, whose memory grows with the input: follows and
// friendships (most of a large file) are kept as pairs of small integers in typed arrays rather
// than as a string key per record in a Map, about 30 bytes each instead of about 150, so that a
// million-line import stays within a few tens of MB (see docs/benchmarks.md, Import).

/** distinct ids -> 0, 1, 2 … in order of first sight */
export class Interner {
  readonly ids: string[] = []
  private readonly index = new Map<string, number>()

  intern (id: string): number {
    let n = this.index.get(id)
    if (n === undefined) {
      n = this.ids.length
      this.ids.push(id)
      this.index.set(id, n)
    }
    return n
  }
}

function grow (a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size)
  b.set(a)
  return b
}

/**
 * Rows (x, y, line) with an exact index on (x, y): put() stores a pair once, a later line of the
 * same pair taking the row over (the last record of a key wins). A row can be dropped later (its
 * line turns negative), e.g. when a reference turns out bad.
 */
export class PairTable {
  x: Int32Array<ArrayBuffer> = new Int32Array(1024)
  y: Int32Array<ArrayBuffer> = new Int32Array(1024)
  /** the row's line; negative once dropped */
  line: Int32Array<ArrayBuffer> = new Int32Array(1024)
  size = 0
  private live = 0
  // open addressing: 0 = empty, else row + 1
  private slots = new Int32Array(2048)

  get count (): number { return this.live }

  private static hash (x: number, y: number): number {
    let h = Math.imul(x, 0x9e3779b1) ^ Math.imul(y + 0x7f4a7c15, 0x85ebca6b)
    h ^= h >>> 15
    return Math.imul(h, 0x2c1b3c6d) >>> 0
  }

  /** 0 when the pair is new (and now stored), else the line that had it, now replaced by line */
  put (x: number, y: number, line: number): number {
    const mask = this.slots.length - 1
    let i = PairTable.hash(x, y) & mask
    for (;;) {
      const s = this.slots[i]
      if (s === 0) break
      const r = s - 1
      if (this.x[r] === x && this.y[r] === y) {
        const before = this.line[r]
        this.line[r] = line
        return before
      }
      i = (i + 1) & mask
    }
    if (this.size === this.x.length) {
      const n = this.x.length * 2
      this.x = grow(this.x, n)
      this.y = grow(this.y, n)
      this.line = grow(this.line, n)
    }
    const r = this.size++
    this.x[r] = x
    this.y[r] = y
    this.line[r] = line
    this.live++
    this.slots[i] = r + 1
    if (this.size * 2 > this.slots.length) this.rehash()
    return 0
  }

  drop (row: number): void {
    if (this.line[row] > 0) {
      this.line[row] = -this.line[row]
      this.live--
    }
  }

  private rehash () {
    const slots = new Int32Array(this.slots.length * 2)
    const mask = slots.length - 1
    for (let r = 0; r < this.size; r++) {
      let i = PairTable.hash(this.x[r], this.y[r]) & mask
      while (slots[i] !== 0) i = (i + 1) & mask
      slots[i] = r + 1
    }
    this.slots = slots
  }
}

/** one small number per line (e.g. its record type), growing as lines come */
export class LineBytes {
  private bytes = new Uint8Array(1 << 16)

  set (line: number, value: number): void {
    if (line >= this.bytes.length) {
      let n = this.bytes.length * 2
      while (line >= n) n *= 2
      const b = new Uint8Array(n)
      b.set(this.bytes)
      this.bytes = b
    }
    this.bytes[line] = value
  }

  get (line: number): number {
    return line < this.bytes.length ? this.bytes[line] : 0
  }
}
