/** Redis-backed pieces for running several toolwire instances as one service. */
export { parseChangeEvent, RedisChangeBus } from './change-bus.js'
export type { RedisChangeBusOptions } from './change-bus.js'
export { RedisRateLimitStore } from './rate-limit.js'
export type { RedisRateLimitOptions } from './rate-limit.js'
export { RedisHandleStore } from './handles.js'
export type { RedisHandleStoreOptions } from './handles.js'
export { RedisTaskStore } from './tasks.js'
export type { RedisTaskStoreOptions } from './tasks.js'
