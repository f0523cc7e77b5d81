/** toolwire/wire: JSON-RPC, 2026-07-28 constants and types, and the error table. Every export is public API. */
export * from './errors.js'
export * from './jsonrpc.js'
export * from './meta.js'
export type * from './types.js'
