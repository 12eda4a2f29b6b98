// Scenario 9's check that the alerts raised are the exact ones: one per watch, for month M + 1, whose
// new and lost interests are the engine's DiffItem of that month on the profile's data after the
// import (what GET /report/{id}/diffs gives on a report generated now), and whose newRedFlags are the
// new interests with a red-flag bucket (docs/decisions/watches-and-alerts.md, Watches and alerts).
import type postgres from 'postgres'
import { computeProfile, formatMonth } from '../../src/engine/index.ts'
import type { AlertsInput } from '../data/alerts-input.ts'
import type { WatchedReport } from './watched-reports.ts'

export interface AlertCheck {
  expected: number
  raised: number
  /** watches with exactly the one expected alert */
  exact: number
  /** a few of the differences found, for the log */
  differences: string[]
}

/** JSON with every object's keys sorted: jsonb keeps its own key order, not the writer's */
export function canonical (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

interface AlertRow { watch_id: string, source: string, profile_id: string, username: string, month: string, new: Array<{ id: string }>, lost: unknown[], new_red_flags: Array<{ id: string }> }

export async function checkAlerts (sql: postgres.Sql, input: AlertsInput, watched: WatchedReport[], reportMonth: number): Promise<AlertCheck> {
  const rows = await sql<AlertRow[]>`select watch_id, source, profile_id, username, month, new, lost, new_red_flags from alerts`
  const byWatch = new Map<string, AlertRow[]>()
  for (const r of rows) byWatch.set(r.watch_id, [...(byWatch.get(r.watch_id) ?? []), r])
  const redFlag = new Set(input.dataset.interests.filter((i) => i.redFlagId !== null).map((i) => i.id))
  const month = formatMonth(reportMonth)
  const differences: string[] = []
  const differ = (what: string) => { if (differences.length < 5) differences.push(what) }
  let exact = 0
  for (const w of watched) {
    const p = input.profiles[w.profile]
    const got = byWatch.get(w.watchId) ?? []
    if (got.length !== 1) { differ(`${p.id}: ${got.length} alerts`); continue }
    const [a] = got
    const after = { ...p, follows: [...p.follows, p.newFollow] }
    const diff = computeProfile({ dataset: input.dataset, profile: after, friends: [], month }).diffs[0]
    const wantRed = diff.new.filter((i) => redFlag.has(i.id))
    if (a.month !== month || diff.date !== month) differ(`${p.id}: month ${a.month}, the engine's ${diff.date}, expected ${month}`)
    else if (a.source !== p.source || a.profile_id !== p.id || a.username !== p.username) differ(`${p.id}: alert names ${a.source}/${a.profile_id}/${a.username}`)
    else if (canonical(a.new) !== canonical(diff.new)) differ(`${p.id}: new ${JSON.stringify(a.new)} != ${JSON.stringify(diff.new)}`)
    else if (canonical(a.lost) !== canonical(diff.lost)) differ(`${p.id}: lost ${JSON.stringify(a.lost)} != ${JSON.stringify(diff.lost)}`)
    else if (canonical(a.new_red_flags) !== canonical(wantRed)) differ(`${p.id}: newRedFlags ${JSON.stringify(a.new_red_flags)} != ${JSON.stringify(wantRed)}`)
    else exact++
  }
  return { expected: watched.length, raised: rows.length, exact, differences }
}
