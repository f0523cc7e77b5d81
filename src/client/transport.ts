/** What the client needs of a transport: send one request and get its response, with its notifications. */
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../wire/jsonrpc.js'

export interface SendOptions {
  /** Aborting it cancels the request: HTTP closes the stream, stdio sends `notifications/cancelled`. */
  readonly signal?: AbortSignal
  /** Extra HTTP headers for this request (`Mcp-Param-*`); ignored on stdio. */
  readonly headers?: Readonly<Record<string, string>>
  /** Notifications that belong to this request (progress, logs, subscription events). */
  readonly onNotification?: (notification: JsonRpcNotification) => void
  /** The HTTP status the answer came with (HTTP only): era detection reads it. */
  readonly onStatus?: (status: number) => void
}

/** A request a 2025-era server sends the client (elicitation, sampling, roots, ping), and the request it serves. */
export type ServerRequestHandler = (request: JsonRpcRequest, origin: JsonRpcRequest | undefined) => void

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
