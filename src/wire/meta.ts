/** Protocol constants and the reserved `_meta` keys of revision 2026-07-28. */

/**
 * The protocol revision this package speaks (basic/index §Versioning).
 *
 * @example
 * ```ts
 * if (response.headers.get(HEADER_PROTOCOL_VERSION) !== PROTOCOL_VERSION) console.warn('another revision')
 * ```
 */
export const PROTOCOL_VERSION = '2026-07-28'
/**
 * Every revision this package accepts in a request's `_meta` protocol version, newest first.
 *
 * @example
 * ```ts
 * const accepted = SUPPORTED_VERSIONS.includes(requested)
 * ```
 */
export const SUPPORTED_VERSIONS: readonly string[] = [PROTOCOL_VERSION]
/**
 * The `jsonrpc` member of every message.
 *
 * @example
 * ```ts
 * const request = { jsonrpc: JSONRPC_VERSION, id: 1, method: 'tools/list' }
 * ```
 */
export const JSONRPC_VERSION = '2.0'

/**
 * The reserved `_meta` key of a request's protocol version (basic/index §Versioning).
 *
 * @example
 * ```ts
 * const params = { _meta: { [META_PROTOCOL_VERSION]: PROTOCOL_VERSION } }
 * ```
 */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
/**
 * The reserved `_meta` key of a request's client name and version.
 *
 * @example
 * ```ts
 * const params = { _meta: { [META_CLIENT_INFO]: { name: 'my-app', version: '1.0.0' } } }
 * ```
 */
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
/**
 * The reserved `_meta` key of a request's client capabilities.
 *
 * @example
 * ```ts
 * const params = { _meta: { [META_CLIENT_CAPABILITIES]: { elicitation: {} } } }
 * ```
 */
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
/**
 * The reserved `_meta` key of the log level a request asks for.
 *
 * @example
 * ```ts
 * const params = { _meta: { [META_LOG_LEVEL]: 'warning' } }
 * ```
 */
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
/**
 * The reserved `_meta` key of a result's server name and version.
 *
 * @example
 * ```ts
 * const server = result._meta?.[META_SERVER_INFO]
 * ```
 */
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo'
/**
 * The reserved `_meta` key naming the `subscriptions/listen` stream a notification belongs to.
 *
 * @example
 * ```ts
 * const subscription = notification.params._meta?.[META_SUBSCRIPTION_ID]
 * ```
 */
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'

/**
 * HTTP header of the protocol version (lower-case, as node and fetch both present header names).
 *
 * @example
 * ```ts
 * request.headers.get(HEADER_PROTOCOL_VERSION) // '2026-07-28'
 * ```
 */
export const HEADER_PROTOCOL_VERSION = 'mcp-protocol-version'
/**
 * HTTP header mirroring the JSON-RPC method (basic/transports/streamable-http §Standard Headers).
 *
 * @example
 * ```ts
 * request.headers.get(HEADER_METHOD) // 'tools/call'
 * ```
 */
export const HEADER_METHOD = 'mcp-method'
/**
 * HTTP header mirroring the tool, prompt or resource a request names.
 *
 * @example
 * ```ts
 * request.headers.get(HEADER_NAME) // 'search'
 * ```
 */
export const HEADER_NAME = 'mcp-name'
/**
 * Prefix of the HTTP headers mirroring tool arguments marked for it (`x-mcp-header`).
 *
 * @example
 * ```ts
 * request.headers.get(`${HEADER_PARAM_PREFIX}region`)
 * ```
 */
export const HEADER_PARAM_PREFIX = 'mcp-param-'

/**
 * Log levels in increasing severity (RFC 5424 order).
 *
 * @example
 * ```ts
 * const atLeastWarning = LOG_LEVELS.slice(LOG_LEVELS.indexOf('warning'))
 * ```
 */
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
