// bench/results/<scenario>.json: what was measured, against what, on which machine, under what load.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, freemem, hostname, loadavg, release, totalmem } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './processes.ts'
import { settings } from './settings.ts'

export interface Target {
  /** what the target is about, e.g. "req/s ratio" */
  metric: string
  text: string
}

export interface ScenarioResult {
  scenario: string
  number: number
  title: string
  database: 'postgresql' | 'none'
  baseline: unknown
  candidate: unknown
  /** candidate / baseline for the figure the target is about (the lower one when several) */
  ratio: number
  target: Target
  met: boolean
  /** per-check outcome when the target has several parts */
  checks?: Record<string, boolean>
  notes?: string[]
  measuredAt: string
  machine: Machine
  settings: Record<string, unknown>
  /** scenario-specific figures */
  [key: string]: unknown
}

export interface Machine {
  cpuModel: string
  cores: number
  memoryMiB: number
  freeMemoryMiB: number
  node: string
  os: string
  host: string
  /** 1-minute load average when the scenario started and ended: above the core count, figures are noisy */
  loadAverage: { start: number, end: number }
}

export function machineStart (): () => Machine {
  const start = loadavg()[0]
  return () => ({
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cores: settings.cores,
    memoryMiB: Math.round(totalmem() / 2 ** 20),
    freeMemoryMiB: Math.round(freemem() / 2 ** 20),
    node: process.version,
    os: `${process.platform} ${release()}`,
    host: hostname(),
    loadAverage: { start: round(start, 2), end: round(loadavg()[0], 2) }
  })
}

export const round = (n: number, digits = 3) => Number(n.toFixed(digits))

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** the p-th percentile of an ascending list (NaN when empty) */
export const percentile = (sorted: number[], p: number) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN

export function writeResult (result: ScenarioResult): string {
  return writeResultFile(result.scenario, result)
}

/** bench/results/<name>.json */
export function writeResultFile (name: string, result: unknown): string {
  const dir = join(ROOT, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n')
  return file
}
