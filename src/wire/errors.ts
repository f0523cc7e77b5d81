/**
 * The one error table: every protocol error toolwire sends, with its JSON-RPC code and HTTP status.
 * Transports never pick statuses themselves; they ask `McpError.status`.
 */
import type { JsonRpcErrorObject } from './jsonrpc.js'

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode]

/** Default HTTP status per code; a few factories below override it (see requirements §11.3). */
const DEFAULT_STATUS: Record<number, number> = {
  [ErrorCode.ParseError]: 400,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.InvalidParams]: 400,
  [ErrorCode.InternalError]: 200, // an execution-phase failure: the envelope was fine (requirements §11.3)
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingRequiredClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
}

/** A protocol-level error: becomes a JSON-RPC error response (never an `isError` tool result). */
export class McpError extends Error {
  override readonly name = 'McpError'
  readonly code: number
  readonly data: unknown
  /** HTTP status the Streamable HTTP transport answers with. */
  readonly status: number
  /** Extra HTTP response headers (`WWW-Authenticate`, `Retry-After`); ignored by other transports. */
  readonly headers: Readonly<Record<string, string>> | undefined

  constructor(
    code: number,
    message: string,
    data?: unknown,
    status?: number,
    headers?: Readonly<Record<string, string>>,
  ) {
    super(message)
    this.code = code
    this.data = data
    this.status = status ?? DEFAULT_STATUS[code] ?? 200
    this.headers = headers
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }
}

export const parseError = (detail?: string): McpError =>
  new McpError(ErrorCode.ParseError, detail ? `Parse error: ${detail}` : 'Parse error: Invalid JSON')

export const invalidRequest = (reason: string): McpError =>
  new McpError(ErrorCode.InvalidRequest, `Invalid request: ${reason}`)

/** `params` nest deeper than the limit; also sent before parsing, when the raw message already shows it. */
export const nestedTooDeep = (maxDepth: number): McpError =>
  new McpError(ErrorCode.InvalidParams, `Invalid params: params are nested deeper than ${maxDepth} levels`)

export const methodNotFound = (method: string): McpError =>
  new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`)

/** Malformed params (missing `_meta`, bad cursor, wrong shapes): 400 on HTTP. */
export const invalidParams = (message: string, data?: unknown): McpError =>
  new McpError(ErrorCode.InvalidParams, message, data)

/** An unknown tool/prompt/resource is an execution-phase error: 200 on HTTP (requirements §11.3). */
export const notFound = (message: string, data?: unknown): McpError =>
  new McpError(ErrorCode.InvalidParams, message, data, 200)

export const internalError = (message = 'Internal error', data?: unknown): McpError =>
  new McpError(ErrorCode.InternalError, message, data)

export const headerMismatch = (message: string): McpError =>
  new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`)

export const missingCapability = (
  requiredCapabilities: Record<string, unknown>,
  message?: string,
): McpError =>
  new McpError(
    ErrorCode.MissingRequiredClientCapability,
    message ?? `Server requires the client capabilities: ${Object.keys(requiredCapabilities).join(', ')}`,
    { requiredCapabilities },
  )

export const unsupportedVersion = (requested: string, supported: readonly string[]): McpError =>
  new McpError(
    ErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version ${requested}; this server supports: ${supported.join(', ')}`,
    { supported: [...supported], requested },
  )

/** Turns anything thrown into an McpError; unknown failures never leak their message. */
export function toMcpError(error: unknown): McpError {
  return error instanceof McpError ? error : internalError()
}
