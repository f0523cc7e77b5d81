/**
 * toolwire/proxy: put any MCP server behind toolwire. Kept apart from the root entry because a stdio
 * upstream needs `node:child_process`. Every export is public API.
 */
export { defineProxy, ProxyServer } from './define.js'
export type { DownstreamOptions, ProxyOptions } from './define.js'
export type { HttpUpstream, OpenTarget, ProxyTarget, StdioUpstream, UpstreamSpec } from './link.js'
export { RESTART_DEFAULTS, Upstream } from './upstream.js'
export type { RestartOptions } from './upstream.js'
export { defineGateway, GatewayServer, globMatcher } from './gateway.js'
export { GatewayProfileServer, MAX_PROFILES } from './gateway-profiles.js'
export type { GatewayProfile } from './gateway-profiles.js'
export type { GatewayMember, GatewayOptions } from './gateway.js'
export { ISOLATE_DEFAULTS } from './upstream-pool.js'
export type { IsolateOptions } from './upstream-pool.js'
export type { CallerPool } from './upstream.js'
