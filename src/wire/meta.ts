/** Protocol constants and the reserved `_meta` keys of revision 2026-07-28. */

export const PROTOCOL_VERSION = '2026-07-28'
export const SUPPORTED_VERSIONS: readonly string[] = [PROTOCOL_VERSION]
export const JSONRPC_VERSION = '2.0'

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo'
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'

/** HTTP header names (lower-case, as node and fetch both present them). */
export const HEADER_PROTOCOL_VERSION = 'mcp-protocol-version'
export const HEADER_METHOD = 'mcp-method'
export const HEADER_NAME = 'mcp-name'
export const HEADER_PARAM_PREFIX = 'mcp-param-'

/** Log levels in increasing severity (RFC 5424 order). */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
