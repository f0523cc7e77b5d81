/** What the client needs of a transport: send one request and get its response, with its notifications. */
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../wire/jsonrpc.js'
import type { Cancellation } from './cancellation.js'

export interface SendOptions {
  /** Aborting it cancels the request: HTTP closes the stream, stdio sends `notifications/cancelled`. */
  readonly signal?: AbortSignal
  /**
   * The same cancellation as `signal`, given by the client so that a transport can follow it without
   * making the AbortSignal (an EventTarget per request); a transport may use either.
   */
  readonly cancellation?: Cancellation
  /** Extra HTTP headers for this request (`Mcp-Param-*`); ignored on stdio. */
  readonly headers?: Readonly<Record<string, string>>
  /** Notifications that belong to this request (progress, logs, subscription events). */
  readonly onNotification?: (notification: JsonRpcNotification) => void
  /** The HTTP status the answer came with (HTTP only): era detection reads it. */
  readonly onStatus?: (status: number) => void
}

/** A request a 2025-era server sends the client (elicitation, sampling, roots, ping), and the request it serves. */
export type ServerRequestHandler = (request: JsonRpcRequest, origin: JsonRpcRequest | undefined) => void

/**
 * How a client reaches a server: `HttpTransport`, `StdioTransport`, or your own.
 *
 * @example
 * ```ts
 * const transport: ClientTransport = new HttpTransport({ url: 'https://mcp.example.com/mcp' })
 * const client = connect(transport)
 * ```
 */
export interface ClientTransport {
  readonly kind: 'http' | 'stdio'
  /** Sends a request and resolves with its JSON-RPC response (result or error). */
  request(message: JsonRpcRequest, options?: SendOptions): Promise<JsonRpcResponse>
  /** Sends a message that gets no answer: a notification, or the response to a server's own request. */
  send(message: JsonRpcNotification | JsonRpcResponse): Promise<void>
  /** Notifications that belong to no request (e.g. log messages on stdio). */
  onNotification?: ((notification: JsonRpcNotification) => void) | undefined
  /** Requests from a 2025-era server; a 2026-07-28 server sends none, so without a handler they are ignored. */
  onRequest?: ServerRequestHandler | undefined
  /** A stable key for the credentials requests carry, for per-credential caches (`private` results). */
  credentialKey(): Promise<string>
  close(): Promise<void>
}

/**
 * Deepest nesting accepted in a server's message. Parsing a response nested millions deep blocks the event
 * loop for seconds, and no timeout can interrupt it, so the raw text is checked first.
 */
export const MAX_RESPONSE_DEPTH = 256
