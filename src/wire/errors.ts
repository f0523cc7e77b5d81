/**
 * The one error table: every protocol error toolwire sends, with its JSON-RPC code and HTTP status.
 * Transports never pick statuses themselves; they ask `McpError.status`.
 */
import type { JsonRpcErrorObject } from './jsonrpc.js'
import { ToolwireError, type ToolwireErrorCode } from './toolwire-error.js'

/**
 * The JSON-RPC error codes toolwire sends or understands, by name (basic/index §Error Codes).
 *
 * @example
 * ```ts
 * import { ErrorCode, McpError } from 'toolwire/wire'
 *
 * throw new McpError(ErrorCode.InvalidParams, 'limit must be positive')
 * ```
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  /** 2025-era sessions only: the `Mcp-Session-Id` is unknown or ended (answered with HTTP 404). */
  SessionNotFound: -32001,
  /**
   * 2025-11-25 servers: the request needs the user to visit a URL first (`data.elicitations`); received by
   * the client, never sent (2025-11-25 client/elicitation §URL Elicitation Required Error).
   */
  UrlElicitationRequired: -32042,
} as const
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode]

/**
 * JSON-RPC 2.0 reserves -32000..-32099 for implementation-defined server errors; this revision assigns
 * -32020..-32022 (basic/index §Error Codes). A code in the range below them comes from some other
 * implementation, typically one that speaks an earlier revision.
 */
export const isPreRevisionServerError = (code: number): boolean =>
  code <= -32000 && code > ErrorCode.HeaderMismatch

/**
 * Default HTTP status per code; a few factories below override it (the spec names a status only for some
 * codes; parse and envelope errors are 400).
 */
const DEFAULT_STATUS: Record<number, number> = {
  [ErrorCode.ParseError]: 400,
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.MethodNotFound]: 404,
  [ErrorCode.InvalidParams]: 400,
  // An execution-phase failure: the envelope was fine, so the spec names no status and 200 carries the body.
  [ErrorCode.InternalError]: 200,
  [ErrorCode.HeaderMismatch]: 400,
  [ErrorCode.MissingRequiredClientCapability]: 400,
  [ErrorCode.UnsupportedProtocolVersion]: 400,
}

/**
 * A protocol-level error: becomes a JSON-RPC error response (never an `isError` tool result).
 *
 * @example
 * ```ts
 * import { ErrorCode, McpError } from 'toolwire/wire'
 *
 * // In a handler: answer with a JSON-RPC error instead of a tool result.
 * throw new McpError(ErrorCode.InvalidParams, 'cursor is not one this server issued')
 *
 * // In a client: what the server answered.
 * try {
 *   await client.callTool('search', {})
 * } catch (error) {
 *   if (error instanceof McpError) console.error(error.code, error.message, error.httpStatus)
 * }
 * ```
 */
export class McpError extends ToolwireError {
  override readonly name: string = 'McpError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_MCP'
  }
  readonly code: number
  readonly data: unknown
  /** HTTP status the Streamable HTTP transport answers with. */
  readonly status: number
  /**
   * The status given when the error was made, undefined when none was: on the client, the HTTP status the
   * error response came with (undefined off HTTP, where `status` is only the code's default).
   */
  readonly httpStatus: number | undefined
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
    this.httpStatus = status
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

/**
 * Malformed params (missing `_meta`, bad cursor, wrong shapes): 400 on HTTP.
 *
 * @example
 * ```ts
 * throw invalidParams('cursor is not one this server issued', { cursor }) // -32602
 * ```
 */
export const invalidParams = (message: string, data?: unknown): McpError =>
  new McpError(ErrorCode.InvalidParams, message, data)

/**
 * An unknown tool/prompt/resource is an execution-phase error: 200 on HTTP (server/tools §Error Handling; the
 * spec names no status for it).
 *
 * @example
 * ```ts
 * throw notFound(`No such note: ${id}`, { id })
 * ```
 */
export const notFound = (message: string, data?: unknown): McpError =>
  new McpError(ErrorCode.InvalidParams, message, data, 200)

/**
 * A -32603 Internal error, with an optional message and data.
 *
 * @example
 * ```ts
 * throw internalError('The index is rebuilding') // -32603
 * ```
 */
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

/*
 * HTTP-only refusals, answered before the body is read or parsed. Each carries a JSON-RPC error body without
 * an id (streamable-http §Security & Endpoint: "the body MAY be a JSON-RPC error with no id").
 */

/** 405: this server accepts only POST (streamable-http §Earlier Streamable HTTP Revisions). */
export const methodNotAllowed = (): McpError =>
  new McpError(ErrorCode.InvalidRequest, 'Invalid request: only POST is supported', undefined, 405, {
    allow: 'POST',
  })

/** 403: a foreign Host or Origin (streamable-http §Security & Endpoint, DNS-rebinding defence). */
export const forbiddenOrigin = (reason: string): McpError =>
  new McpError(ErrorCode.InvalidRequest, `Forbidden: ${reason}`, undefined, 403)

/**
 * 413: a body over the configured limit. Refused while reading (`abandonBody`), the rest is never read, so
 * the connection is closed; refused on its declared length, the body is drained and the connection kept.
 */
export const payloadTooLarge = (maxBytes: number, abandonBody = false): McpError =>
  new McpError(
    ErrorCode.InvalidRequest,
    `Invalid request: body exceeds ${maxBytes} bytes`,
    undefined,
    413,
    abandonBody ? { connection: 'close' } : undefined,
  )

/** 415: the body is not declared as JSON (streamable-http §Sending Messages). */
export const unsupportedMediaType = (): McpError =>
  new McpError(
    ErrorCode.InvalidRequest,
    'Invalid request: Content-Type must be application/json',
    undefined,
    415,
  )

/** 406: `Accept` allows neither JSON nor SSE (streamable-http §Sending Messages). */
export const notAcceptable = (): McpError =>
  new McpError(
    ErrorCode.InvalidRequest,
    'Invalid request: Accept must allow application/json',
    undefined,
    406,
  )

/** 406: `subscriptions/listen` answers only with an SSE stream (streamable-http §Receiving Messages). */
export const streamNotAcceptable = (): McpError =>
  new McpError(
    ErrorCode.InvalidRequest,
    'Invalid request: subscriptions/listen answers with an SSE stream: Accept must allow text/event-stream',
    undefined,
    406,
  )

/** 500: the transport itself failed while answering; the detail goes only to the server log. */
export const transportFailure = (): McpError =>
  new McpError(ErrorCode.InternalError, 'Internal error', undefined, 500)

/**
 * 500: other middleware read the request body and left nothing in `req.body`. A configuration error of the
 * server's own, said at once instead of waiting for a body that will never come.
 */
export const bodyAlreadyConsumed = (): McpError =>
  new McpError(
    ErrorCode.InternalError,
    'Internal error: the request body was read before the MCP handler saw it and not left in req.body ' +
      '(mount the MCP endpoint before body-reading middleware, or leave its result in req.body)',
    undefined,
    500,
  )

/** 401: no token, or a token that failed verification (authorization §Error Handling). */
export const unauthorized = (challenge: string, description: string): McpError =>
  new McpError(ErrorCode.InvalidRequest, `Unauthorized: ${description}`, undefined, 401, {
    'www-authenticate': challenge,
  })

/** 403 `insufficient_scope`: names every scope the operation needs, for step-up authorization. */
export const insufficientScope = (
  scopes: readonly string[],
  challenge: string,
  description: string,
): McpError =>
  new McpError(ErrorCode.InvalidRequest, `Forbidden: ${description}`, { requiredScopes: [...scopes] }, 403, {
    'www-authenticate': challenge,
  })

/** 503: the token verifier could not decide (JWKS endpoint unreachable …); not the client's fault. */
export const authUnavailable = (): McpError =>
  new McpError(
    ErrorCode.InternalError,
    'Authorization is temporarily unavailable; retry shortly',
    undefined,
    503,
    { 'retry-after': '5' },
  )

/** 429 with `Retry-After` in whole seconds (request-level limits). */
export function tooManyRequests(retryAfterMs: number, what: string): McpError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
  return new McpError(
    ErrorCode.InvalidRequest,
    `Too many requests: ${what}; retry in ${seconds} s`,
    { retryAfterMs: Math.ceil(retryAfterMs) },
    429,
    { 'retry-after': String(seconds) },
  )
}

/**
 * An upstream server's JSON-RPC error, relayed by a proxy with its code, message and data unchanged: the
 * downstream client must see what the upstream said (basic/index §Error Codes), not a generic failure.
 */
export const upstreamError = (code: number, message: string, data?: unknown): McpError =>
  new McpError(Number.isInteger(code) ? code : ErrorCode.InternalError, message, data)

/** A proxy's upstream cannot be reached, crashed, or timed out: an execution failure, said plainly. */
export const upstreamUnavailable = (detail: string): McpError =>
  new McpError(ErrorCode.InternalError, `Upstream server unavailable: ${detail}`, { upstream: 'unavailable' })

/**
 * A proxy's upstream answered, but with something the protocol does not allow (a malformed result, a
 * question of a kind nobody declared): the upstream is reachable, so this is not said to be unavailable.
 */
export const upstreamInvalid = (detail: string): McpError =>
  new McpError(ErrorCode.InternalError, `Upstream server sent an invalid response: ${detail}`, {
    upstream: 'invalid-response',
  })

/**
 * Turns anything thrown into an McpError; unknown failures never leak their message.
 *
 * @example
 * ```ts
 * const error = toMcpError(new Error('boom')) // McpError -32603; an McpError passes through unchanged
 * ```
 */
export function toMcpError(error: unknown): McpError {
  return isAnswerError(error) ? error : internalError()
}

/** The McpErrors a client made from what a peer sent (or found locally), as opposed to ones made to answer with. */
const RECEIVED = new WeakSet<McpError>()

/**
 * Marks an McpError the client made from a server's answer or from its own findings. `McpError` is one class
 * on both sides, so a server tool that calls another server and lets its error escape would otherwise pass
 * the other server's code, message and status to its own caller; marked, it is an unexpected failure like
 * any other (and `errorExposure` decides what the caller sees).
 *
 * @internal
 */
export function markReceived<E extends McpError>(error: E): E {
  RECEIVED.add(error)
  return error
}

/**
 * An McpError this process made to answer with: a server passes it through as the JSON-RPC error. One a client
 * received from another server is not.
 *
 * @internal
 */
export const isAnswerError = (error: unknown): error is McpError =>
  error instanceof McpError && !RECEIVED.has(error)
