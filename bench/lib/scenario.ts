// What a scenario is, and what the runner hands it.
import type { Machine, ScenarioResult } from './results.ts'
import type { BenchRun } from './service.ts'

export interface ScenarioContext {
  run: BenchRun
  /** the machine description, load average from the scenario's start to now */
  machine: () => Machine
  /** run at the end of the scenario, last deferred first, whatever happened */
  defer: (fn: () => Promise<void> | void) => void
}

export interface Scenario {
  name: string
  number: number
  title: string
  run: (ctx: ScenarioContext) => Promise<ScenarioResult>
}
