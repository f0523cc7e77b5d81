/** The wire layer: JSON-RPC, 2026-07-28 constants and types, the error table. */
export * from './errors.js'
export * from './jsonrpc.js'
export * from './meta.js'
export type * from './types.js'
