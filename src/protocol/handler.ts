/**
 * The one interface transports depend on. A transport turns bytes into requests and replies back into bytes;
 * everything else (methods, features, security) sits behind `handle`. `Server` implements it.
 */
import type { JsonRpcRequest } from '../wire/jsonrpc.js'
import type { Reply, ReplyTarget, ServerLogger, TransportCheck } from './dispatcher.js'
import type { AuthInfo, Exchange } from './exchange.js'

/** The parts of an HTTP request an authenticator reads. */
export interface AuthRequest {
  header(name: string): string | undefined
  /** The client's address, for limits on failed attempts. */
  readonly remoteAddress?: string | undefined
}

/** Accepted (with the caller's identity, or anonymous), or refused with a ready HTTP answer. */
export type AuthOutcome =
  | { readonly ok: true; readonly auth?: AuthInfo }
  | {
      readonly ok: false
      readonly status: number
      readonly headers: Record<string, string>
      readonly body: string
    }

/** A document served beside the endpoint, such as RFC 9728 protected-resource metadata. */
export interface HttpDocument {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/**
 * HTTP authentication as a transport sees it: a verdict per request and the documents it publishes.
 *
 * @example
 * ```ts
 * // Most servers use bearerAuth({...}); implement HttpAuthenticator for another scheme.
 * const server = defineServer({ name: 'x', version: '1.0.0', security: { auth: bearerAuth({ resource, authorizationServers, jwt }) } })
 * ```
 */
export interface HttpAuthenticator {
  authenticate(request: AuthRequest): Promise<AuthOutcome> | AuthOutcome
  /** The document for `method path`, or undefined when the path is not one of its own. */
  document?(method: string, path: string): HttpDocument | undefined
}

/** What the HTTP transports ask of a server that publishes a Server Card (discovery §Hosted Server Card Location). */
export interface ServerCardSource {
  /** The answer to `method` on the card's path; `endpointUrl` is the URL of the MCP endpoint it belongs to. */
  document(method: string, endpointUrl: string, ifNoneMatch: string | undefined): HttpDocument
}

export interface RequestHandler {
  /** Answers one request; null when there is nothing to send (the request was cancelled). */
  handle(request: JsonRpcRequest, exchange: Exchange, check?: TransportCheck): Promise<Reply | null>
  /**
   * `handle`, but a request answered synchronously returns its reply at once instead of a promise, so the
   * transport can write it in the same tick. Optional: transports fall back to `handle`.
   */
  answer?(
    request: JsonRpcRequest,
    exchange: Exchange,
    check?: TransportCheck,
  ): Reply | null | Promise<Reply | null>
  /**
   * `answer`, with the reply handed to `target` (at once, or when the handler settles), so a transport
   * holds one object of its own per open request rather than a promise chain. Optional: transports fall
   * back to `answer` or `handle`. `target` must not throw.
   */
  answerTo?(
    request: JsonRpcRequest,
    exchange: Exchange,
    check: TransportCheck | undefined,
    target: ReplyTarget,
  ): void
  readonly logger: ServerLogger
  /** Present when HTTP requests must authenticate. */
  readonly authenticator?: HttpAuthenticator | undefined
  /**
   * Deepest `params` nesting accepted; transports refuse deeper messages before parsing them (default
   * `DEFAULT_MAX_DEPTH`, 64).
   */
  readonly maxParamsDepth?: number | undefined
  /** Present when the server publishes a Server Card at `<endpoint>/server-card`. */
  readonly serverCard?: ServerCardSource | undefined
  /** Ends every long-lived stream gracefully; transports call it before closing their connections. */
  close(): Promise<void>
}
