/**
 * Legacy sessions without server memory: the `Mcp-Session-Id` a 2025-era client gets is a sealed token
 * (HMAC-SHA-256 with the `requestState` secret, expiring) carrying the negotiated version and the client's
 * capabilities, so any instance sharing the secret can serve any request of the session
 * (2025-11-25 basic/transports §Session Management: the id must be globally unique and secure).
 */
import type { RequestStateCodec } from '../protocol/mrtr/state.js'
import { isRecord } from '../wire/jsonrpc.js'
import { type OwnerKey, parseOwnerKey } from '../protocol/principal.js'
import type { ClientCapabilities, Implementation } from '../wire/types.js'

const KIND = 'mcp-session'

export interface LegacySession {
  /** Random, unique per `initialize`; keys what an instance keeps for the session (streams, log level). */
  readonly id: string
  readonly version: string
  readonly capabilities: ClientCapabilities
  readonly clientInfo?: Implementation
  /** Who opened the session (`ownerKey` of its principal); only that caller may use the session id. */
  readonly principal?: OwnerKey
  /** Epoch ms after which the token no longer opens. */
  readonly expiresAt: number
}

/** Session ids verified recently, so a busy session pays the HMAC check once, not on every request. */
const VERIFIED_CACHE = 10_000

export class SessionCodec {
  readonly #verified = new Map<string, LegacySession>()

  constructor(
    private readonly codec: RequestStateCodec,
    readonly ttlMs: number,
  ) {}

  /** The token (session id) for a new session opened by `initialize`. */
  async mint(
    version: string,
    capabilities: ClientCapabilities,
    clientInfo: Implementation | undefined,
    principal: OwnerKey | undefined,
  ): Promise<string> {
    const payload: Record<string, unknown> = { sid: crypto.randomUUID(), pv: version, caps: capabilities }
    if (clientInfo) payload.ci = clientInfo
    // Bound to the user (2025-11-25 basic/security_best_practices §Session Hijacking).
    if (principal !== undefined) payload.p = principal
    return this.codec.sealToken(KIND, payload, this.ttlMs)
  }

  /** The session a token stands for; undefined when forged, expired or not a session token. */
  async open(token: string): Promise<LegacySession | undefined> {
    const known = this.#verified.get(token)
    if (known) {
      if (known.expiresAt > Date.now()) return known
      this.#verified.delete(token)
    }
    const session = await this.#verify(token)
    if (session) {
      if (this.#verified.size >= VERIFIED_CACHE)
        this.#verified.delete(this.#verified.keys().next().value as string)
      this.#verified.set(token, session)
    }
    return session
  }

  async #verify(token: string): Promise<LegacySession | undefined> {
    // Visible ASCII only (2025-11-25 §Session Management); anything else is not ours.
    if (token.length > 8192 || !/^[\x21-\x7e]+$/.test(token)) return undefined
    const value = await this.codec.openToken(KIND, token)
    if (!value || typeof value.sid !== 'string' || typeof value.pv !== 'string' || !isRecord(value.caps))
      return undefined
    const session: {
      -readonly [K in keyof LegacySession]: LegacySession[K]
    } = {
      id: value.sid,
      version: value.pv,
      capabilities: value.caps as ClientCapabilities,
      expiresAt: value.exp as number,
    }
    if (isRecord(value.ci)) session.clientInfo = value.ci as unknown as Implementation
    const principal = parseOwnerKey(value.p)
    if (principal !== undefined) session.principal = principal
    return session
  }
}
