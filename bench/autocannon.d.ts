/** The part of autocannon's API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string
    connections?: number
    duration?: number
    expectBody?: string
    timeout?: number
  }
  interface Histogram {
    average: number
    p50: number
    p99: number
  }
  interface Result {
    '2xx': number
    non2xx: number
    errors: number
    timeouts: number
    mismatches: number
    latency: Histogram
    requests: Histogram
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
