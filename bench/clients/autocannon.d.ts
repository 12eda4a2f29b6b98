// The part of autocannon's programmatic API the load client uses (the package ships no types).
declare module 'autocannon' {
  interface Request {
    headers?: Record<string, string>
    [key: string]: unknown
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
    requests?: Array<{ setupRequest?: (request: Request) => Request }>
  }
  interface Result {
    requests: { average: number, total: number }
    latency: { p50: number, p99: number }
    errors: number
    timeouts: number
    non2xx: number
  }
  function autocannon (opts: Options): Promise<Result>
  export default autocannon
}
