// The part of autocannon's programmatic API the load clients use (the package ships no types).
declare module 'autocannon' {
  interface Request {
    headers?: Record<string, string>
    [key: string]: unknown
  }
  interface RequestSpec {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    setupRequest?: (request: Request) => Request
  }
  /** one connection: its events, and the iterator of the requests it sends */
  interface Client {
    on: ((event: 'response', fn: (status: number, bytes: number, ms: number) => void) => void) &
      ((event: 'timeout', fn: () => void) => void) &
      ((event: 'connError', fn: (err: NodeJS.ErrnoException) => void) => void)
    requestIterator: { setRequests: (requests: RequestSpec[]) => void }
  }
  interface Options {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string
    connections: number
    pipelining: number
    duration: number
    timeout?: number
    /** requests per second over all connections */
    overallRate?: number
    requests?: RequestSpec[]
    /** called for each connection as it is made, in order */
    setupClient?: (client: Client) => void
  }
  interface Result {
    /** total: answers received; sent: requests written, those still in flight at the stop included */
    requests: { average: number, total: number, sent: number }
    latency: { p50: number, p99: number }
    errors: number
    timeouts: number
    non2xx: number
    /** seconds the run lasted */
    duration: number
  }
  /** the run, as a promise of its result that can be stopped early */
  interface Instance extends Promise<Result> {
    stop: () => void
  }
  function autocannon (opts: Options): Instance
  export default autocannon
}
