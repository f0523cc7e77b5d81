// The memory limiter is imported by file so the root entry does not load the package index, which
// requires node:cluster and node:crypto for limiters toolwire does not use.
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import { RateLimiterMemory } from 'rate-limiter-flexible'
  export default RateLimiterMemory
}
declare module 'rate-limiter-flexible/lib/RateLimiterRes.js' {
  import { RateLimiterRes } from 'rate-limiter-flexible'
  export default RateLimiterRes
}
