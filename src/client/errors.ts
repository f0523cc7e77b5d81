/**
 * The client's error types. An `McpError` carries what the server said; a `TransportError` says the
 * exchange itself failed; local failures (timeouts, cancellation) are their own classes, so they can never
 * be mistaken for an error the server sent (basic/index §Error Codes).
 */
import type { CallToolResult } from '../wire/types.js'
import { ErrorCode, markReceived, McpError } from '../wire/errors.js'
import { ToolwireError, type ToolwireErrorCode } from '../wire/toolwire-error.js'

/**
 * The old client-side name of `McpError`, the one class for a JSON-RPC error on both sides: the server
 * throws it to answer with an error, the client throws it with what the server answered. The same class
 * object, so `instanceof ProtocolError` and `instanceof McpError` agree.
 *
 * @deprecated Use `McpError` (same class); this alias goes away in a future major release.
 * @example
 * ```ts
 * import { McpError } from 'toolwire/client'
 *
 * try {
 *   await client.callTool('search', {})
 * } catch (error) {
 *   if (error instanceof McpError) console.error(error.code, error.message) // code: the JSON-RPC number
 * }
 * ```
 */
export const ProtocolError = McpError
/** @deprecated Use `McpError` (same class). */
export type ProtocolError = McpError

/** One URL the user must visit, from a -32042 error's `data.elicitations`. */
export interface RequiredUrl {
  readonly url: string
  readonly message: string
  readonly elicitationId: string | undefined
}

/**
 * The server needs the user to visit URLs before it can answer (-32042): `elicitations` lists them. The
 * request is not retried; after the user has visited them, the application may send it again
 * (2025-11-25 client/elicitation §URL Elicitation Required Error).
 *
 * @example
 * ```ts
 * try {
 *   await client.callTool('connect_account', {})
 * } catch (error) {
 *   if (error instanceof UrlElicitationRequiredError) for (const { url } of error.elicitations) console.log(url)
 * }
 * ```
 */
export class UrlElicitationRequiredError extends McpError {
  override readonly name = 'UrlElicitationRequiredError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_URL_ELICITATION_REQUIRED'
  }
  readonly elicitations: readonly RequiredUrl[]

  constructor(message: string, data: unknown, status?: number) {
    super(ErrorCode.UrlElicitationRequired, message, data, status)
    markReceived(this)
    const listed = isObject(data) && Array.isArray(data.elicitations) ? data.elicitations : []
    this.elicitations = listed.flatMap((entry: unknown) =>
      isObject(entry) && typeof entry.url === 'string'
        ? [
            {
              url: entry.url,
              message: typeof entry.message === 'string' ? entry.message : '',
              elicitationId: typeof entry.elicitationId === 'string' ? entry.elicitationId : undefined,
            },
          ]
        : [],
    )
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The error a server's JSON-RPC error response becomes: a typed subclass where the code has one. */
export function protocolError(code: number, message: string, data: unknown, status?: number): McpError {
  return code === ErrorCode.UrlElicitationRequired
    ? new UrlElicitationRequiredError(message, data, status)
    : markReceived(new McpError(code, message, data, status))
}

/**
 * The server and this client share no protocol version.
 *
 * @example
 * ```ts
 * try {
 *   await client.listTools()
 * } catch (error) {
 *   if (error instanceof VersionMismatchError) console.error('server speaks', error.serverVersions)
 * }
 * ```
 */
export class VersionMismatchError extends McpError {
  override readonly name = 'VersionMismatchError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_VERSION_MISMATCH'
  }
  readonly clientVersions: readonly string[]
  readonly serverVersions: readonly string[]

  constructor(clientVersions: readonly string[], serverVersions: readonly string[], detail?: string) {
    const server = serverVersions.length > 0 ? serverVersions.join(', ') : 'an unknown version'
    super(
      ErrorCode.UnsupportedProtocolVersion,
      `The server speaks MCP ${server}; this client speaks ${clientVersions.join(', ')}. ` +
        `No version is shared${detail ? ` (${detail})` : ''}.`,
      { supported: [...serverVersions] },
    )
    markReceived(this)
    this.clientVersions = clientVersions
    this.serverVersions = serverVersions
  }
}

/**
 * A tool call completed with `isError: true` (thrown only when asked for).
 *
 * @example
 * ```ts
 * try {
 *   await client.callTool('notes_read', { id: 'x' }, { throwOnToolError: true })
 * } catch (error) {
 *   if (error instanceof ToolExecutionError) console.error(error.tool, error.result.content)
 * }
 * ```
 */
export class ToolExecutionError extends ToolwireError {
  override readonly name = 'ToolExecutionError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_TOOL_EXECUTION'
  }
  readonly tool: string
  readonly result: CallToolResult

  constructor(tool: string, result: CallToolResult) {
    const text = result.content
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('\n')
      .trim()
    super(text || `Tool ${tool} failed`)
    this.tool = tool
    this.result = result
  }
}

/**
 * The exchange failed: connection refused, a non-MCP HTTP answer, a broken stream, a dead process.
 *
 * @example
 * ```ts
 * try {
 *   await client.listTools()
 * } catch (error) {
 *   if (error instanceof TransportError) console.error('unreachable:', error.message, error.status)
 * }
 * ```
 */
export class TransportError extends ToolwireError {
  override readonly name: string = 'TransportError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_TRANSPORT'
  }
  readonly status: number | undefined

  constructor(message: string, options?: { status?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.status = options?.status
  }
}

/**
 * The server sent something this client cannot accept (bad JSON-RPC, unknown resultType, schema mismatch).
 *
 * @example
 * ```ts
 * try {
 *   await client.callTool('search', { query: 'mcp' })
 * } catch (error) {
 *   if (error instanceof InvalidResponseError) console.error('the server broke the protocol:', error.message)
 * }
 * ```
 */
export class InvalidResponseError extends ToolwireError {
  override readonly name = 'InvalidResponseError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_INVALID_RESPONSE'
  }
}

/**
 * A call of a tool the server does not list (even after a fresh `tools/list`) and no `searchTools` answer
 * returned, or lists in a form this client drops: nothing was sent, since its result could not be checked
 * against a definition. `allowUnlisted` in the call's options sends it anyway, unchecked. Also thrown by
 * `searchTools` when the server lists no `search_tools`.
 *
 * @example
 * ```ts
 * try {
 *   await client.callTool('not_listed', {})
 * } catch (error) {
 *   if (error instanceof UnknownToolError) await client.callTool(error.tool, {}, { allowUnlisted: true })
 * }
 * ```
 */
export class UnknownToolError extends ToolwireError {
  override readonly name = 'UnknownToolError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_UNKNOWN_TOOL'
  }
  constructor(
    readonly tool: string,
    reason?: string,
    /** Why the call was wanted, when not by the caller (`searchTools`: the server offers no tool search). */
    context?: string,
  ) {
    super(
      reason
        ? `tools/call ${tool}: not called, the client dropped this tool from the server's list (${reason})`
        : context
          ? `tools/call ${tool}: not called, the server does not list this tool: ${context}`
          : `tools/call ${tool}: not called, the server does not list this tool (pass allowUnlisted to call it unchecked)`,
    )
  }
}

/**
 * The request took longer than its timeout; it was cancelled.
 *
 * @example
 * ```ts
 * try {
 *   await client.callTool('slow', {}, { timeoutMs: 5_000 })
 * } catch (error) {
 *   if (error instanceof RequestTimeoutError) console.error(`no answer in ${error.timeoutMs} ms`)
 * }
 * ```
 */
export class RequestTimeoutError extends ToolwireError {
  override readonly name = 'RequestTimeoutError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_REQUEST_TIMEOUT'
  }
  constructor(
    readonly timeoutMs: number,
    hint?: string,
  ) {
    super(
      `${hint ? `${hint}: no` : 'The request timed out: no'} answer within ${timeoutMs} ms; it was cancelled`,
    )
  }
}

/**
 * The caller cancelled the request through its AbortSignal.
 *
 * @example
 * ```ts
 * const controller = new AbortController()
 * const call = client.callTool('slow', {}, { signal: controller.signal })
 * controller.abort()
 * await call.catch((error) => error instanceof RequestCancelledError) // true
 * ```
 */
export class RequestCancelledError extends ToolwireError {
  override readonly name = 'RequestCancelledError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_REQUEST_CANCELLED'
  }
  constructor(reason?: unknown) {
    super(typeof reason === 'string' && reason ? `Request cancelled: ${reason}` : 'Request cancelled')
  }
}
