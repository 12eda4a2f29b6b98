// Every line an app built by test/helper.ts logs (at trace level, into memory: stdout stays quiet),
// and the check that none of them carries a secret: no password, JWT, cookie value, recovery or
// confirmation secret, Stripe key or Google credential. Known values (the config's secrets, what
// registeredUser and signedInUser handled, what a test registers) are looked for verbatim; the rest
// by their shape, so that a secret nobody registered is caught too.
import type { Tap } from './helper.ts'

export interface Leak { line: string, why: string }

// Shapes of secrets. Redacted values ("[redacted]") never match.
const SHAPES: Array<[string, RegExp]> = [
  ['a JWT (a session token or a Google credential)', /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/],
  ['a Bearer token', /Bearer\s+(?!\[redacted\])[A-Za-z0-9._~+/-]{16,}/i],
  ['a session cookie value', /\bsid=(?!\[redacted\])[A-Za-z0-9%._~+/-]{20,}/],
  ['a recovery or confirmation secret', /\/(?:recovery|confirm)\/(?!resend\b)[A-Za-z0-9_-]{32,}/],
  ['a Stripe secret key', /\b(?:sk|rk)_(?:test|live)_[A-Za-z0-9]{10,}/],
  ['a Stripe webhook secret', /\bwhsec_[A-Za-z0-9]{10,}/],
  ['a private key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ['an unredacted secret field', /"(?:password|newPassword|currentPassword|credential|secret|authorization|cookie|set-cookie)":\s*"(?!\[redacted\])/i]
]

/** shorter values are words, not secrets: looking for them would find them everywhere */
const MIN_SECRET_LENGTH = 8

export function createLogCapture () {
  const lines: string[] = []
  const secrets = new Set<string>()
  const reported = new Set<number>()
  let onLeak: ((leak: Leak) => void) | undefined

  function check (line: string): string | undefined {
    for (const [why, shape] of SHAPES) if (shape.test(line)) return why
    for (const s of secrets) if (line.includes(s)) return `the registered secret ${s.slice(0, 4)}…`
    return undefined
  }

  const capture = {
    lines,
    /** pino's destination: every line, as written */
    stream: {
      write (line: string) {
        lines.push(line)
        const why = check(line)
        if (why && onLeak) {
          reported.add(lines.length - 1)
          onLeak({ line, why })
        }
      }
    },
    /** a value that must never reach a log line (and its URL-encoded form) */
    secret (value: string | undefined | null): void {
      if (!value || value.length < MIN_SECRET_LENGTH) return
      secrets.add(value)
      const encoded = encodeURIComponent(value)
      if (encoded !== value) secrets.add(encoded)
    },
    /** every captured line that carries a registered secret or something shaped like a secret */
    leaks (): Leak[] {
      const out: Leak[] = []
      lines.forEach((line) => {
        const why = check(line)
        if (why) out.push({ line, why })
      })
      return out
    },
    /**
     * Fail the test `t` on a leak: at once while it runs (the line as it is written), and at its
     * teardown for lines written later (while the app closes) or holding a secret registered after
     * they were written. Teardown order: call this before the app's own close is registered, so that
     * the check runs after the app has closed.
     */
    assertNoLeaksIn (t: Tap): void {
      if (!t.fail) return
      const fail = t.fail.bind(t)
      let ended = false
      onLeak = (leak) => { if (!ended) fail(`no secret in the logs: ${leak.why}`, { line: leak.line.slice(0, 500) }) }
      t.teardown(() => {
        ended = true
        const late: Leak[] = []
        lines.forEach((line, i) => {
          if (reported.has(i)) return
          const why = check(line)
          if (why) late.push({ line, why })
        })
        if (late.length === 0) return
        // the test has ended: tap reports the failure without its message, so it goes to stderr too
        for (const l of late) console.error(`secret in a log line (${l.why}): ${l.line.slice(0, 500)}`)
        fail(`no secret in the logs: ${late.length} line(s) leak, see stderr`, { lines: late.map((l) => l.why) })
      })
    }
  }
  return capture
}

export type LogCapture = ReturnType<typeof createLogCapture>
