// The chaos run's HTTP client: every call goes to one of the web instances (as a balancer without
// health checks would send it) and every answer is recorded: its status, instance and time, for the
// books' "no 5xx but 503 while the database was down".
import type { Proc } from './cluster.ts'

export const API = '/api/v1'

export interface Answer {
  status: number
  /** the parsed JSON body, when there was one */
  json: Record<string, unknown>
  headers: Headers
  /** set when no answer came (refused, reset, timeout) */
  error?: string
}

export interface ServerError { at: number, status: number, call: string, instance: string, body: string }

export interface CallLog {
  answers: number
  byStatus: Record<string, number>
  noAnswer: number
  serverErrors: ServerError[]
}

export function newCallLog (): CallLog {
  return { answers: 0, byStatus: {}, noAnswer: 0, serverErrors: [] }
}

export interface CallOptions {
  auth?: string
  body?: unknown
  /** NDJSON or another raw body, with its content type */
  raw?: { type: string, data: string }
  headers?: Record<string, string>
}

let turn = 0

/** the instance a call goes to: round-robin */
export function anyInstance (webs: Proc[]): Proc {
  return webs[turn++ % webs.length]
}

export async function call (log: CallLog, web: Proc, method: string, path: string, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers }
  if (o.auth) headers.authorization = `Bearer ${o.auth}`
  let body: string | undefined
  if (o.raw) { headers['content-type'] = o.raw.type; body = o.raw.data } else if (o.body !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(o.body) }
  const name = `${method} ${path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')}`
  try {
    const res = await fetch(`${web.url}${API}${path}`, { method, headers, body, signal: AbortSignal.timeout(30_000) })
    const text = await res.text()
    let json: Record<string, unknown> = {}
    try { json = text ? JSON.parse(text) as Record<string, unknown> : {} } catch {}
    log.answers++
    log.byStatus[res.status] = (log.byStatus[res.status] ?? 0) + 1
    if (res.status >= 500) log.serverErrors.push({ at: Date.now(), status: res.status, call: name, instance: web.name, body: text.slice(0, 300) })
    return { status: res.status, json, headers: res.headers }
  } catch (err) {
    log.noAnswer++
    const e = err as Error & { cause?: { code?: string } }
    return { status: 0, json: {}, headers: new Headers(), error: e.cause?.code ?? e.name }
  }
}
