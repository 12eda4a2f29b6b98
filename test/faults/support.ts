// Shared by the fault tests (not a test file itself): steady request load against a server process
// with every outcome recorded, and a table lock that stops a report worker in the middle of a report.
import postgres from 'postgres'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { childDatabase } from '../foundation/support.ts'
import { call, signedInOn, startServer } from '../peers/server-process.ts'

import type { Tap } from '../helper.ts'
import type { Test } from '../tap.ts'

/** a request of the load: a GET of a path, or another method with a JSON body */
export type LoadRequest = string | { method: string, path: string, body: unknown }

/** one request of the load: when it left and came back (ms since the epoch), and how it ended */
export interface Outcome {
  /** `GET /path` */
  request: string
  start: number
  end: number
  /** the HTTP status, or 0 when no answer came (refused, reset, or the client's own 30 s limit) */
  status: number
  body?: unknown
  error?: string
}

/**
 * `concurrency` clients, each sending the requests one after another, in turn, until stopped (at the
 * latest at teardown), a moment apart after a failed connection so that a refused port is not a
 * busy loop.
 */
export function steadyLoad (t: Tap, server: { url: string }, headers: Record<string, string>, requests: LoadRequest[], concurrency = 4) {
  const outcomes: Outcome[] = []
  let running = true
  const clients = Array.from({ length: concurrency }, async (_, i) => {
    for (let n = i; running; n++) {
      const r = requests[n % requests.length]
      const { method, path, body } = typeof r === 'string' ? { method: 'GET', path: r, body: undefined } : r
      const request = `${method} ${path}`
      const start = Date.now()
      try {
        const res = await call(server, method, path, headers, body, { timeoutMs: 30_000 })
        outcomes.push({ request, start, end: Date.now(), status: res.status, body: res.json })
      } catch (err) {
        outcomes.push({ request, start, end: Date.now(), status: 0, error: String((err as Error).cause ?? (err as Error).message) })
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  })
  const stop = async () => {
    running = false
    await Promise.all(clients)
  }
  t.teardown(stop)
  return { outcomes, stop }
}

/** a 2xx answer */
export const succeeded = (o: Outcome): boolean => o.status >= 200 && o.status < 300

/**
 * Hold an ACCESS EXCLUSIVE lock on `table` in an open transaction, on a connection of its own: a
 * report worker that reads the table waits there, in the middle of its report (its first stage
 * already committed). release() rolls back; it is also the teardown. A connection that the server
 * ended meanwhile (the database stopped) is not written to again: postgres.js would throw on the
 * closed socket, outside any promise.
 */
export async function holdTable (t: Tap, url: string, table: string): Promise<{ release: () => Promise<void> }> {
  let closed = false
  const client = postgres(url, { max: 1, onnotice: () => {}, onclose: () => { closed = true } })
  const conn = await client.reserve()
  await conn.unsafe('begin')
  await conn.unsafe(`lock table ${table} in access exclusive mode`)
  let released = false
  const release = async () => {
    if (released) return
    released = true
    if (!closed) await conn.unsafe('rollback').catch(() => {})
    conn.release()
    await client.end({ timeout: 0 })
  }
  t.teardown(release)
  return { release }
}

/** what a server process logged at error level or above (pino's JSON lines) */
export function errorLines (output: string): string[] {
  return output.split('\n').filter((l) => /^\{.*"level":(50|60)/.test(l))
}

/** one outcome in a line, for a failing assertion's message */
export const brief = (o: Outcome): string =>
  `${o.request} ${o.status || o.error} after ${o.end - o.start} ms${succeeded(o) ? '' : `: ${JSON.stringify(o.body ?? '')}`}`

/** the largest of some numbers (0 for none), for figures in assertion messages */
export const most = (xs: number[]): number => xs.reduce((a, b) => Math.max(a, b), 0)

export const INGEST_TOKEN = 'faults-ingest-token-0123456789abcdefgh'
export const fixture = readFileSync(fileURLToPath(new URL('../fixtures/ingest-valid.ndjson', import.meta.url)))

/**
 * What a process-level fault test starts from: `src/server.ts` in a process of its own on a database
 * of its own (with `env` on top), the ingest fixture imported, a signed-in user and a draft report.
 * `logs` reads the process's JSON log lines so far; its log is shown when the test fails.
 */
export async function serverWithReport<Line> (t: Test, prefix: string, env: Record<string, string>) {
  const db = await childDatabase(t)
  const server = await startServer(t, { DATABASE_URL: db.url, INGEST_TOKEN, ...env })
  t.teardown(() => { if (!t.passing()) t.comment(`server log (end):\n${server.output().slice(-20_000)}`) })
  const logs = () => server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line)
  const imported = await fetch(`${server.url}/api/v1/ingest`, {
    method: 'POST', headers: { authorization: `Bearer ${INGEST_TOKEN}`, 'content-type': 'application/x-ndjson' }, body: new Uint8Array(fixture)
  })
  t.equal(imported.status, 200, 'profile data imported')
  const user = await signedInOn(server, prefix)
  const created = await call(server, 'POST', '/report', user.auth, { profiles: [{ source: 'ig', username: 'jdoe' }] })
  t.equal(created.status, 201)
  return { server, logs, user, id: created.json.id as string }
}
