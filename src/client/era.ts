/**
 * Which era the server speaks, found as basic/versioning §Backward Compatibility with Initialization-Based
 * Versions says, and every request sent in that era. The era is a property of the server: it is kept for
 * the connection, and for the endpoint in this process (legacy.ts).
 */
import { HttpTransport } from './http.js'
import type { OldSseChannel } from './http-sse.js'
import {
  discoverResultOf,
  httpAnswerSaysLegacy,
  initializeLegacy,
  knownLegacy,
  LEGACY_VERSIONS,
  type LegacyServer,
  rememberEra,
  stdioProbeSaysLegacy,
} from './legacy.js'
import { ProtocolError, RequestTimeoutError, TransportError } from './errors.js'
import { SUPPORTED_VERSIONS } from '../wire/meta.js'
import type { Implementation } from '../wire/types.js'
import type { CallOptions, Session } from './session.js'

/** The revisions a client may be pinned to (`protocolVersion`), newest first. */
export const PINNABLE_VERSIONS: readonly string[] = [...SUPPORTED_VERSIONS, ...LEGACY_VERSIONS]

/** Refuses a revision this client cannot speak, naming the ones it can. */
export function checkPinnedVersion(version: string): string {
  if (PINNABLE_VERSIONS.includes(version)) return version
  throw new TypeError(
    `Unknown MCP protocol version ${JSON.stringify(version)}: pin one of ${PINNABLE_VERSIONS.join(', ')}`,
  )
}

export class EraGate {
  readonly #session: Session
  readonly #clientInfo: Implementation | undefined
  /** How long the probe and `initialize` may take. */
  readonly #timeoutMs: number
  /** The server's era once known: a LegacyServer for a 2025-era one, undefined for 2026-07-28. */
  #era: Promise<LegacyServer | undefined> | undefined
  #legacy: LegacyServer | undefined
  /** Epoch ms when the 2025-era session began (`initialize` answered): telemetry's session duration. */
  #legacySince: number | undefined
  /** The `#era` promise once it has resolved: while it is still current, requests need not wait on it. */
  #resolvedEra: Promise<LegacyServer | undefined> | undefined
  /** The stdio probe's `server/discover` result, handed to the discover() that may follow it. */
  #probeResult: Record<string, unknown> | undefined
  /** A 2025-era revision the client is pinned to: `initialize` offers it and accepts nothing else. */
  readonly #pinnedLegacy: string | undefined

  /**
   * `pinned` skips discovery: some servers speak both eras but implement a feature in only one, so the
   * caller picks the era. A 2026-07-28 pin sends no `initialize`; a 2025-era pin opens with it.
   */
  constructor(session: Session, clientInfo: Implementation | undefined, timeoutMs: number, pinned?: string) {
    this.#session = session
    this.#clientInfo = clientInfo
    this.#timeoutMs = timeoutMs
    if (pinned !== undefined && LEGACY_VERSIONS.includes(pinned)) this.#pinnedLegacy = pinned
    else if (pinned !== undefined) this.#era = this.#settle(Promise.resolve(undefined))
  }

  /** What `initialize` said, once the server turned out to be 2025-era. */
  get legacy(): LegacyServer | undefined {
    return this.#legacy
  }

  /**
   * The 2025-era session's version and start, once (a second call returns undefined): telemetry records
   * its duration when the client closes.
   */
  takeSession(): { readonly version: string; readonly since: number } | undefined {
    const legacy = this.#legacy
    const since = this.#legacySince
    this.#legacySince = undefined
    return legacy && since !== undefined ? { version: legacy.version, since } : undefined
  }

  /** Whether the era is known or being found. */
  get settled(): boolean {
    return this.#era !== undefined
  }

  /** Waits until the era is known (after the first request started). */
  async ready(): Promise<void> {
    await this.#era
  }

  /**
   * Sends a request in the server's era. Before the era is known: on stdio `server/discover` probes first
   * (stdio §Backward Compatibility); on HTTP this request itself is the probe, and an answer that says
   * "legacy" leads to `initialize` and a resend (streamable-http §Backward Compatibility).
   */
  request(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    // A known 2026-07-28 server: straight through, without a wait on the settled era per call.
    const era = this.#era
    if (era !== undefined && era === this.#resolvedEra && !this.#legacy && method !== 'server/discover')
      return this.#session.request(method, params, options)
    return this.#request(method, params, options)
  }

  async #request(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    if (this.#era === undefined && this.#pinnedLegacy !== undefined) {
      const http = this.#session.transport instanceof HttpTransport ? this.#session.transport : undefined
      const initialized = this.#initialize()
      this.#era = this.#settle(
        http
          ? initialized.catch((failure: unknown) => this.#oldTransport(http, failure, failure))
          : initialized,
      )
    } else if (this.#era === undefined) {
      const http = this.#session.transport instanceof HttpTransport ? this.#session.transport : undefined
      if (http && !knownLegacy(http.url)) return this.#probeHttp(http, method, params, options)
      this.#era = this.#settle(http ? this.#initializeCached(http) : this.#probeStdio())
    }
    await this.#era
    const probed = this.#probeResult
    if (method === 'server/discover') {
      this.#probeResult = undefined
      if (this.#legacy) return { ...discoverResultOf(this.#legacy) }
      if (probed) return probed
    }
    const http =
      this.#legacy && this.#session.transport instanceof HttpTransport ? this.#session.transport : undefined
    // HTTP+SSE (2024-11-05): the session lives as long as the stream, so a stream the server ended is
    // replaced, with a new session, before the next request.
    const ended = http?.oldSseChannel
    if (http && ended?.ended) await this.#reopenOldSse(http, ended)
    const channel = http?.oldSseChannel
    const sessionId = http?.legacy?.sessionId
    try {
      return await this.#session.request(method, params, options)
    } catch (error) {
      // 2025-11-25 basic/transports §Session Management: a 404 to a request with a session id means the
      // session is over, and the client starts a new one with initialize. An HTTP+SSE endpoint that no
      // longer knows the stream's session answers 404 the same way.
      const status =
        error instanceof ProtocolError
          ? error.httpStatus
          : error instanceof TransportError
            ? error.status
            : undefined
      if (!http || status !== 404 || (sessionId === undefined && channel === undefined)) throw error
      if (channel) {
        await this.#reopenOldSse(http, channel)
      } else if (http.legacy?.sessionId === sessionId) {
        http.forgetSession()
        this.#era = this.#settle(this.#initialize())
      }
      await this.#era
      return this.#session.request(method, params, options)
    }
  }

  /** A new HTTP+SSE stream and session in place of `channel`, opened once for all that found it over. */
  async #reopenOldSse(http: HttpTransport, channel: OldSseChannel): Promise<void> {
    if (http.oldSseChannel === channel) {
      this.#era = this.#settle(http.openOldSse(this.#timeoutMs).then(() => this.#initialize()))
    }
    await this.#era
  }

  /** HTTP, era unknown: this request is the probe; requests sent meanwhile wait for its outcome. */
  async #probeHttp(
    http: HttpTransport,
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    let settle!: (legacy: Promise<LegacyServer | undefined>) => void
    this.#era = this.#settle(new Promise((resolve) => (settle = resolve)))
    try {
      const result = await this.#session.request(method, params, options)
      settle(Promise.resolve(undefined))
      return result
    } catch (error) {
      if (!httpAnswerSaysLegacy(error)) {
        // A modern error proves a modern server; an unreachable one proves nothing yet.
        const modern = error instanceof ProtocolError && error.httpStatus !== undefined
        settle(modern ? Promise.resolve(undefined) : Promise.reject(toError(error)))
        throw error
      }
      // When `initialize` fails too, its own answer says more only if it is a JSON-RPC error; a 4xx
      // without one may be the HTTP+SSE transport of 2024-11-05.
      settle(this.#initialize().catch((failure: unknown) => this.#oldTransport(http, error, failure)))
    }
    await this.#era
    // An HTTP+SSE server is found again by the same steps: `initialize` straight away would fail there.
    if (!http.oldSse) rememberEra(http.url, true)
    return this.request(method, params, options)
  }

  /** Keeps the era once known; a failure leaves it unknown, so the next request probes again. */
  #settle(era: Promise<LegacyServer | undefined>): Promise<LegacyServer | undefined> {
    const settled = era.then(
      (legacy) => {
        if (legacy !== this.#legacy) this.#legacySince = Date.now()
        this.#legacy = legacy
        this.#resolvedEra = settled
        return legacy
      },
      (error: unknown) => {
        if (this.#era === settled) this.#era = undefined
        throw error
      },
    )
    settled.catch(() => undefined) // the requests that wait on it see the failure; none is left unhandled
    return settled
  }

  /**
   * 2025-03-26 basic/transports §Backwards Compatibility: POST `initialize` failed with 4xx, so GET, expecting
   * the event stream of the HTTP+SSE transport (2024-11-05), and initialize through it. If the URL serves
   * that neither, one line says so (never the page it answered with). `probeError` is thrown when
   * `initialize` failed otherwise.
   */
  async #oldTransport(http: HttpTransport, probeError: unknown, failure: unknown): Promise<LegacyServer> {
    const status = failure instanceof TransportError ? failure.status : undefined
    if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 403) {
      throw failure instanceof ProtocolError ? failure : probeError
    }
    try {
      await http.openOldSse(this.#timeoutMs)
    } catch (refused) {
      const why = refused instanceof Error ? refused.message : String(refused)
      throw new TransportError(
        `${http.url.href} is not an MCP endpoint: POST answered HTTP ${status} and ${why}; check the URL ` +
          '(Streamable HTTP servers usually serve /mcp, HTTP+SSE servers /sse)',
        { status, cause: refused },
      )
    }
    return this.#initialize()
  }

  #initialize(): Promise<LegacyServer> {
    return initializeLegacy(this.#session, this.#clientInfo, this.#timeoutMs, this.#pinnedLegacy)
  }

  /** stdio: `server/discover` first; a recognised modern error stays modern, anything else is legacy. */
  async #probeStdio(): Promise<LegacyServer | undefined> {
    try {
      const result = await this.#session.request('server/discover', {}, { timeoutMs: this.#timeoutMs })
      this.#probeResult = result
      return undefined
    } catch (error) {
      if (!stdioProbeSaysLegacy(error)) throw error
      try {
        return await this.#initialize()
      } catch (failure) {
        if (!(failure instanceof RequestTimeoutError)) throw failure
        throw new RequestTimeoutError(
          failure.timeoutMs,
          'The server answered neither server/discover (2026-07-28) nor initialize (2025-era)',
        )
      }
    }
  }

  /** HTTP, era cached as legacy: `initialize` straight away; if that fails, forget the era and probe anew. */
  async #initializeCached(http: HttpTransport): Promise<LegacyServer | undefined> {
    try {
      return await this.#initialize()
    } catch {
      rememberEra(http.url, false)
      return undefined
    }
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}
