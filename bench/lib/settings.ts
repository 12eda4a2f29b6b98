// The benchmark's own knobs. The bench is tooling, not the service: it reads its BENCH_* variables
// here, in one place, and hands the service its configuration through the child's environment.
import { availableParallelism } from 'node:os'

function num (name: string, def: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return def
  const n = Number(raw)
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${JSON.stringify(raw)}`)
  return n
}

/** a comma-separated list of positive whole numbers */
function counts (name: string, def: number[]): number[] {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return def
  const list = raw.split(',').map((x) => Number(x.trim()))
  if (list.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`${name} must be positive whole numbers separated by commas, got ${JSON.stringify(raw)}`)
  return list
}

export const settings = {
  /** seconds per measured autocannon round */
  duration: num('BENCH_DURATION', 5),
  /** seconds of the warm-up run of each side before the interleaved rounds */
  warmup: num('BENCH_WARMUP', 2),
  /** interleaved rounds per side (baseline, candidate, baseline, candidate ...) */
  rounds: Math.max(1, Math.floor(num('BENCH_ROUNDS', 2))),
  connections: Math.max(1, Math.floor(num('BENCH_CONNECTIONS', 100))),
  /** HTTP scenarios: server processes per side, the fastest after a warm-up measured (bench/lib/compare.ts) */
  processes: Math.max(1, Math.floor(num('BENCH_PROCESSES', 2))),
  /** administrative connection: the harness creates and drops a fresh database on this server */
  adminUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  /** npm run soak -- --chaos: the Redis server (and its database number, so the run's counters stay apart) the run's proxy stands in front of; scenarios 11 and 12: the events broker */
  redisUrl: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379/13',
  /** the service's log level during the benchmark (request logging at info costs a lot; it is configuration) */
  logLevel: process.env.BENCH_LOG_LEVEL || 'warn',
  /** write a --cpu-prof profile of every service process into this directory */
  cpuProfDir: process.env.BENCH_CPU_PROF || '',
  /** scenario 6: write heap snapshots of each server before and after opening the streams into this directory */
  heapSnapshotDir: process.env.BENCH_HEAP_SNAPSHOTS || '',
  /** scenarios 1 and 4: accounts, each signed in once, shared out over the connections */
  spreadAccounts: Math.max(1, Math.floor(num('BENCH_SPREAD_ACCOUNTS', 2000))),
  /** scenario 3: accounts signed up, shared out over the connections (each cycles through its own) */
  signinAccounts: Math.max(1, Math.floor(num('BENCH_SIGNIN_ACCOUNTS', 2000))),
  /** scenario 3: bench/lib/signin-probe.ts in the measured service (where a sign-in's time goes, in its log) */
  signinProbe: process.env.BENCH_SIGNIN_PROBE === '1',
  /** scenario 6: the stream counts measured, each against the raw server, in one run */
  sseStreams: counts('BENCH_SSE_STREAMS', [2000, 10_000]),
  ssePublishes: Math.max(1, Math.floor(num('BENCH_SSE_PUBLISHES', 5))),
  /** scenario 7: timed engine runs per side (the median counts) */
  engineRuns: Math.max(1, Math.floor(num('BENCH_ENGINE_RUNS', 15))),
  /** scenario 8 */
  importLines: Math.max(1000, Math.floor(num('BENCH_IMPORT_LINES', 1_000_000))),
  importRounds: Math.max(1, Math.floor(num('BENCH_IMPORT_ROUNDS', 1))),
  /** share of the import's lines that repeat a key (an earlier version of a follow or friendship) */
  importRepeats: Math.min(0.5, num('BENCH_IMPORT_REPEATS', 0.1)),
  /** scenario 9: watched profiles (one ready report and one watch each), watches per user (WATCH_MAX is 5 without a subscription) */
  alertsProfiles: Math.max(25, Math.floor(num('BENCH_ALERTS_PROFILES', 10_000))),
  alertsPerUser: Math.min(5, Math.max(1, Math.floor(num('BENCH_ALERTS_PER_USER', 5)))),
  /** scenario 9: requests per second of each of the two reads (0: as fast as the service answers), and seconds of each window without an import */
  alertsReadRate: Math.floor(num('BENCH_ALERTS_READ_RATE', 200)),
  alertsQuiet: Math.max(1, num('BENCH_ALERTS_QUIET', 10)),
  /** scenario 9: how the import arrives, POST /ingest to the service ('ingest') or `npm run import` beside it ('cli'); seconds it may take to the last alert */
  alertsImport: process.env.BENCH_ALERTS_IMPORT === 'cli' ? 'cli' as const : 'ingest' as const,
  alertsTimeout: Math.max(10, num('BENCH_ALERTS_TIMEOUT', 180)),
  /** the service's ALERT_BATCH_PROFILES as the children inherit it, for the record ('default' when unset) */
  alertBatchProfiles: process.env.ALERT_BATCH_PROFILES || 'default',
  /** scenario 10: accounts the staff search runs over */
  adminSearchAccounts: Math.max(1000, Math.floor(num('BENCH_ADMIN_SEARCH_ACCOUNTS', 1_000_000))),
  /** scenario 11 (capacity): report generations measured through one worker, and its jobs at once */
  capacityReports: Math.max(10, Math.floor(num('BENCH_CAPACITY_REPORTS', 100))),
  capacityWorkers: Math.max(1, Math.floor(num('BENCH_CAPACITY_WORKERS', 2))),
  /** scenario 11: the stream counts the memory per stream is read at (a line through them and none), and the budget it is extrapolated to */
  capacityStreams: counts('BENCH_CAPACITY_STREAMS', [1000, 2000]),
  capacityMemoryMiB: Math.max(64, num('BENCH_CAPACITY_MEMORY_MIB', 512)),
  /** scenario 11: instances of the transport ceilings, the event rates tried in turn (events a second, all instances), seconds of each */
  capacityInstances: Math.max(1, Math.floor(num('BENCH_CAPACITY_INSTANCES', 2))),
  capacityRates: counts('BENCH_CAPACITY_RATES', [100, 200, 400, 800, 1600, 3200]),
  capacityStepSeconds: Math.max(1, num('BENCH_CAPACITY_STEP', 2)),
  /** scenarios 11 and 12: reports each instance holds streams of, and streams per report */
  fleetReports: Math.max(1, Math.floor(num('BENCH_FLEET_REPORTS', 10))),
  fleetStreams: Math.max(1, Math.floor(num('BENCH_FLEET_STREAMS', 2))),
  /** scenario 12 (fleet): instance counts in turn, events a second per instance, seconds of each window */
  fleetInstances: counts('BENCH_FLEET_INSTANCES', [1, 2, 4, 8]),
  fleetRate: Math.max(1, num('BENCH_FLEET_RATE', 40)),
  fleetSeconds: Math.max(1, num('BENCH_FLEET_SECONDS', 4)),
  /** the transports scenarios 11 and 12 run (notify, redis) */
  transports: (process.env.BENCH_TRANSPORTS || 'notify,redis').split(',').map((t) => t.trim()).filter((t): t is 'notify' | 'redis' => t === 'notify' || t === 'redis'),
  /** npm run load: connections over the mix, seconds, and how long the server may settle before "after" */
  loadConnections: Math.max(3, Math.floor(num('BENCH_LOAD_CONNECTIONS', 1000))),
  loadDuration: Math.max(1, num('BENCH_LOAD_DURATION', 20)),
  settle: num('BENCH_SETTLE', 15),
  /** seconds before autocannon counts a request as timed out (its default) */
  loadTimeout: Math.max(1, num('BENCH_LOAD_TIMEOUT', 10)),
  /** npm run soak: seconds, connections, requests per second over the mix, seconds between samples */
  soakDuration: Math.max(30, num('BENCH_SOAK_DURATION', 300)),
  soakConnections: Math.max(3, Math.floor(num('BENCH_SOAK_CONNECTIONS', 60))),
  soakRate: Math.max(3, num('BENCH_SOAK_RATE', 150)),
  soakInterval: Math.max(1, num('BENCH_SOAK_INTERVAL', 10)),
  /** keep the temporary directory (data files, logs) after the run */
  keep: process.env.BENCH_KEEP === '1',
  cores: availableParallelism()
}

/** the environment a child process inherits, plus overrides */
export function childEnv (extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra }
}
