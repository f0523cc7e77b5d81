/**
 * 2025-era servers (revisions 2025-03-26 to 2025-11-25, which open with `initialize`): telling them apart
 * from 2026-07-28 servers, the handshake, and answering their own requests (basic/versioning §Backward
 * Compatibility with Initialization-Based Versions; 2025-11-25 basic/lifecycle §Initialization).
 */
import {
  isRecord,
  type JsonRpcErrorObject,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../wire/jsonrpc.js'
import { ErrorCode, McpError } from '../wire/errors.js'
import { SUPPORTED_VERSIONS } from '../wire/meta.js'
import type { ClientCapabilities, DiscoverResult, Implementation, ServerCapabilities } from '../wire/types.js'
import {
  InvalidResponseError,
  ProtocolError,
  RequestTimeoutError,
  TransportError,
  VersionMismatchError,
} from './errors.js'
import { HttpTransport } from './http.js'
import { answerInputs, type InputHandlers } from './input.js'
import type { Session } from './session.js'

/** The 2025-era revisions this client speaks, newest first (2024-11-05 used the older HTTP+SSE transport). */
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26']

/** Error codes only a 2026-07-28 server sends: header mismatch, missing capability, unsupported version. */
const MODERN_CODES = new Set<number>([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
])

/** What `initialize` told about a 2025-era server. */
export interface LegacyServer {
  readonly version: string
  readonly capabilities: ServerCapabilities
  readonly serverInfo: Implementation | undefined
  readonly instructions: string | undefined
}

/**
 * stdio §Backward Compatibility: the `server/discover` probe failed. A recognised modern error (or no shared
 * version) means a modern server, so no fallback; any other error or no answer means legacy. Never keyed to
 * one specific code.
 */
export function stdioProbeSaysLegacy(error: unknown): boolean {
  if (error instanceof ProtocolError) return !MODERN_CODES.has(error.code)
  return error instanceof RequestTimeoutError || error instanceof InvalidResponseError
}

/**
 * streamable-http §Backward Compatibility: a modern request failed. A 4xx whose body is no recognised modern
 * JSON-RPC error means legacy. 401/403 are about credentials and a 404 carrying -32601 is a modern "method
 * not found" (basic/transports/streamable-http §Protocol Version Header), so those are not a fallback.
 */
export function httpAnswerSaysLegacy(error: unknown): boolean {
  const status =
    error instanceof ProtocolError
      ? error.httpStatus
      : error instanceof TransportError
        ? error.status
        : undefined
  if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 403) return false
  if (!(error instanceof ProtocolError)) return true
  if (MODERN_CODES.has(error.code)) return false
  return !(status === 404 && error.code === ErrorCode.MethodNotFound)
}

/** Endpoints found to be 2025-era in this process: the era is a property of the server, so it is cached. */
const legacyEndpoints = new Set<string>()

export function knownLegacy(url: URL): boolean {
  return legacyEndpoints.has(url.href)
}

export function rememberEra(url: URL, legacy: boolean): void {
  if (legacy) legacyEndpoints.add(url.href)
  else legacyEndpoints.delete(url.href)
}

/** The 2025-era names of the capabilities a client declares (2025-11-25 schema ClientCapabilities). */
function legacyCapabilities(capabilities: ClientCapabilities): Record<string, unknown> {
  const declared: Record<string, unknown> = {}
  if (capabilities.elicitation) declared.elicitation = capabilities.elicitation
  if (capabilities.sampling) declared.sampling = capabilities.sampling
  if (capabilities.roots) declared.roots = {}
  if (capabilities.experimental) declared.experimental = capabilities.experimental
  return declared
}

/**
 * The 2025-era handshake: `initialize` offering the newest legacy revision (or the `pinned` one), then
 * `notifications/initialized`. Switches the session (and an HTTP transport) to that era.
 */
export async function initializeLegacy(
  session: Session,
  clientInfo: Implementation | undefined,
  timeoutMs: number,
  pinned?: string,
): Promise<LegacyServer> {
  const transport = session.transport
  const offered = pinned ?? (LEGACY_VERSIONS[0] as string)
  session.legacy = true
  session.version = offered
  if (transport instanceof HttpTransport) transport.legacy = { version: offered }
  try {
    const result = await session.request(
      'initialize',
      {
        protocolVersion: offered,
        capabilities: legacyCapabilities(session.options.capabilities),
        clientInfo: clientInfo ?? { name: 'toolwire', version: '0.1.0' },
      },
      { timeoutMs },
    )
    const version = result.protocolVersion
    // lifecycle §Version Negotiation: a version the client does not support ends the connection; with a
    // pinned revision, only that one is supported.
    // The HTTP+SSE transport's own revision, 2024-11-05, is spoken there too.
    const oldSse = transport instanceof HttpTransport && transport.oldSse
    const accepted =
      pinned !== undefined ? [pinned] : oldSse ? [...LEGACY_VERSIONS, '2024-11-05'] : LEGACY_VERSIONS
    if (typeof version !== 'string' || !accepted.includes(version)) {
      throw new VersionMismatchError(
        pinned === undefined ? [...SUPPORTED_VERSIONS, ...LEGACY_VERSIONS] : accepted,
        typeof version === 'string' ? [version] : [],
      )
    }
    session.version = version
    if (transport instanceof HttpTransport && transport.legacy)
      transport.legacy = { ...transport.legacy, version }
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    // The server may ask (elicitation …) or announce changes outside any request: listen from the start.
    if (transport instanceof HttpTransport) void transport.listenToSession()
    return {
      version,
      capabilities: isRecord(result.capabilities) ? (result.capabilities as ServerCapabilities) : {},
      serverInfo: isRecord(result.serverInfo) ? (result.serverInfo as unknown as Implementation) : undefined,
      instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    }
  } catch (error) {
    session.legacy = false
    session.version = session.options.protocolVersion
    if (transport instanceof HttpTransport) transport.legacy = undefined
    throw error
  }
}

/** What `server/discover` would have said, from the `initialize` answer (never cached beyond the session). */
export function discoverResultOf(server: LegacyServer): DiscoverResult {
  const result: DiscoverResult = {
    resultType: 'complete',
    supportedVersions: [server.version],
    capabilities: server.capabilities,
    ttlMs: 0,
    cacheScope: 'private',
  }
  if (server.instructions !== undefined) result.instructions = server.instructions
  if (server.serverInfo) result._meta = { 'io.modelcontextprotocol/serverInfo': { ...server.serverInfo } }
  return result
}

/**
 * The error a server's request is answered with when its handler fails. A handler's own McpError keeps its
 * code, message and data, so a proxy passes its caller's refusal on as the caller said it (a user who
 * rejected sampling is -1, 2025-11-25 client/sampling §Error Handling). A capability the answering side
 * lacks (-32021, a 2026-07-28 code a 2025-era server does not know) is -32601, what a client without the
 * capability answers (2025-11-25 client/roots §Error Handling). A question this client may not answer is
 * -32602, anything else -32603, each with its message.
 */
function refusalOf(error: unknown): JsonRpcErrorObject {
  if (error instanceof McpError) {
    const code =
      error.code === ErrorCode.MissingRequiredClientCapability ? ErrorCode.MethodNotFound : error.code
    return error.data === undefined
      ? { code, message: error.message }
      : { code, message: error.message, data: error.data }
  }
  const message = error instanceof Error ? error.message : String(error)
  const code = error instanceof InvalidResponseError ? ErrorCode.InvalidParams : ErrorCode.InternalError
  return { code, message }
}

/**
 * Answers a 2025-era server's own request with the same handlers that answer `input_required` questions,
 * so an application writes them once (2025-11-25 client/elicitation, client/sampling, client/roots).
 */
export async function answerServerRequest(
  session: Session,
  request: JsonRpcRequest,
  origin: JsonRpcRequest | undefined,
  handlers: InputHandlers,
  signal: AbortSignal = AbortSignal.timeout(session.options.timeoutMs),
): Promise<void> {
  let response: JsonRpcResponse
  if (request.method === 'ping') {
    response = { jsonrpc: '2.0', id: request.id, result: {} }
  } else if (
    request.method !== 'elicitation/create' &&
    request.method !== 'sampling/createMessage' &&
    request.method !== 'roots/list'
  ) {
    const error = { code: ErrorCode.MethodNotFound, message: `Method not found: ${request.method}` }
    response = { jsonrpc: '2.0', id: request.id, error }
  } else {
    const name = origin?.params?.name ?? origin?.params?.uri
    try {
      const answers = await answerInputs(
        { request: { method: request.method, params: request.params ?? {} } },
        handlers,
        session.options.capabilities,
        {
          method: origin?.method ?? request.method,
          name: typeof name === 'string' ? name : undefined,
          signal,
        },
      )
      response = { jsonrpc: '2.0', id: request.id, result: answers.request as Record<string, unknown> }
    } catch (error) {
      response = { jsonrpc: '2.0', id: request.id, error: refusalOf(error) }
    }
  }
  await session.transport.send(response).catch(() => undefined)
}
