/**
 * The one error vocabulary: every error toolwire throws on purpose, on the server and on the client, is a
 * `ToolwireError` with a stable string `errorCode`. Messages are for people and may change in any release;
 * `errorCode` is for programs and never changes meaning. docs/errors.md lists every code (a test holds the
 * table and the classes to each other).
 *
 * The string code is `errorCode`, not `code`: on `McpError`, `code` has always been the JSON-RPC error number
 * sent on the wire (basic/index §Error Codes), as in the official SDKs.
 */

/** Every `errorCode` a `ToolwireError` can carry. */
export type ToolwireErrorCode =
  | 'ERR_APP_DEFINITION'
  | 'ERR_APP_VIEW'
  | 'ERR_AUTHORIZATION'
  | 'ERR_BUDGET_EXCEEDED'
  | 'ERR_CATALOG'
  | 'ERR_DOCUMENT_LOAD'
  | 'ERR_HANDLE_LIMIT'
  | 'ERR_INVALID_RESPONSE'
  | 'ERR_INVALID_TOKEN'
  | 'ERR_MCP'
  | 'ERR_OPENAPI'
  | 'ERR_PROMPT_DEFINITION'
  | 'ERR_REQUEST_CANCELLED'
  | 'ERR_REQUEST_TIMEOUT'
  | 'ERR_RESOURCE_DEFINITION'
  | 'ERR_SCHEMA'
  | 'ERR_SERVER_CARD'
  | 'ERR_SKILL_DEFINITION'
  | 'ERR_SKILL_VERIFICATION'
  | 'ERR_TOOL'
  | 'ERR_TOOL_DEFINITION'
  | 'ERR_TOOL_EXECUTION'
  | 'ERR_TRANSPORT'
  | 'ERR_UNKNOWN_TOOL'
  | 'ERR_URI_TEMPLATE'
  | 'ERR_URL_ELICITATION_REQUIRED'
  | 'ERR_VERSION_MISMATCH'

/**
 * The base class of every error toolwire throws on purpose. The same class object is exported from
 * `toolwire`, `toolwire/client` and `toolwire/wire`, so `instanceof` holds whichever entry an error came from.
 *
 * @example
 * ```ts
 * import { ToolwireError } from 'toolwire/client'
 *
 * try {
 *   await client.callTool('search', { query: 'mcp' })
 * } catch (error) {
 *   if (error instanceof ToolwireError && error.errorCode === 'ERR_REQUEST_TIMEOUT') retryLater()
 *   else throw error
 * }
 * ```
 */
export abstract class ToolwireError extends Error {
  /** Stable across releases: branch on this, not on the message. One per class, listed in docs/errors.md. */
  abstract get errorCode(): ToolwireErrorCode
}
