/**
 * Legacy sessions without server memory: the `Mcp-Session-Id` a 2025-era client gets is an encrypted token
 * (JWE compact, `dir` + `A256GCM`, with a key derived from the `requestState` secret, expiring) carrying the
 * negotiated version and the client's capabilities, so any instance sharing the secret can serve any request
 * of the session, and nothing in it can be read on the way: the principal it is bound to stays out of proxy
 * logs (2025-11-25 basic/transports §Session Management: the id must be globally unique and secure;
 * basic/security_best_practices §Session Hijacking).
 */
import type * as Jose from 'jose'
import type { RequestStateCodec } from '../protocol/mrtr/state.js'
import { isRecord } from '../wire/jsonrpc.js'
import { type OwnerKey, parseOwnerKey } from '../protocol/principal.js'
import type { ClientCapabilities, Implementation } from '../wire/types.js'

/** Separates the session key from every other key derived from the same secret. */
const KEY_PURPOSE = 'toolwire 2025-era Mcp-Session-Id v1'
const PROTECTED_HEADER = { alg: 'dir', enc: 'A256GCM', typ: 'mcp-session' } as const

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
  /** Epoch ms of the `initialize` that opened it (telemetry's `mcp.server.session.duration`). */
  readonly startedAt: number
}

export interface SessionCacheOptions {
  /** Session ids whose verification one instance remembers (default 10 000). */
  readonly maxEntries?: number
  /** Bytes those remembered ids and their sessions may hold (default 16 MiB); the oldest go first. */
  readonly maxBytes?: number
}

export const SESSION_CACHE_DEFAULTS = { maxEntries: 10_000, maxBytes: 16 * 1024 * 1024 } as const

/** Longest id worth decrypting: the largest handshake the server accepts seals to far less. */
const MAX_TOKEN = 8192

/** Loaded with the first session: a server no 2025-era client talks to never imports it. */
let jose: Promise<typeof Jose> | undefined

interface Cached {
  readonly session: LegacySession
  readonly bytes: number
}

export class SessionCodec {
  /** Session ids decrypted recently, so a busy session pays the decryption once, not on every request. */
  readonly #verified = new Map<string, Cached>()
  #cachedBytes = 0
  readonly #maxEntries: number
  readonly #maxBytes: number
  #key: Promise<Uint8Array> | undefined

  constructor(
    private readonly codec: RequestStateCodec,
    readonly ttlMs: number,
    cache: SessionCacheOptions = {},
  ) {
    this.#maxEntries = cache.maxEntries ?? SESSION_CACHE_DEFAULTS.maxEntries
    this.#maxBytes = cache.maxBytes ?? SESSION_CACHE_DEFAULTS.maxBytes
    for (const [name, value] of Object.entries({ maxEntries: this.#maxEntries, maxBytes: this.#maxBytes }))
      if (!(Number.isInteger(value) && value > 0))
        throw new TypeError(`legacy session cache ${name} must be a positive integer`)
  }

  #keyBytes(): Promise<Uint8Array> {
    return (this.#key ??= this.codec.deriveKey(KEY_PURPOSE))
  }

  /** The token (session id) for a new session opened by `initialize`. */
  async mint(
    version: string,
    capabilities: ClientCapabilities,
    clientInfo: Implementation | undefined,
    principal: OwnerKey | undefined,
  ): Promise<string> {
    const { EncryptJWT } = await (jose ??= import('jose'))
    const payload: Record<string, unknown> = {
      sid: crypto.randomUUID(),
      pv: version,
      caps: capabilities,
      st: Date.now(),
    }
    if (clientInfo) payload.ci = clientInfo
    // Bound to the user (2025-11-25 basic/security_best_practices §Session Hijacking).
    if (principal !== undefined) payload.p = principal
    return new EncryptJWT(payload)
      .setProtectedHeader(PROTECTED_HEADER)
      .setExpirationTime(new Date(Date.now() + this.ttlMs))
      .encrypt(await this.#keyBytes())
  }

  /** The session a token stands for, if this instance has verified it already and it has not expired. */
  cached(token: string): LegacySession | undefined {
    const known = this.#verified.get(token)
    if (!known) return undefined
    if (known.session.expiresAt > Date.now()) return known.session
    this.#forget(token, known)
    return undefined
  }

  /** The session a token stands for; undefined when forged, expired or not a session token. */
  async open(token: string): Promise<LegacySession | undefined> {
    const known = this.cached(token)
    if (known) return known
    const opened = await this.#decrypt(token)
    if (opened) this.#remember(token, opened)
    return opened?.session
  }

  #remember(token: string, cached: Cached): void {
    if (cached.bytes > this.#maxBytes) return
    this.#verified.set(token, cached)
    this.#cachedBytes += cached.bytes
    for (const [oldest, entry] of this.#verified) {
      if (this.#verified.size <= this.#maxEntries && this.#cachedBytes <= this.#maxBytes) break
      this.#forget(oldest, entry)
    }
  }

  #forget(token: string, cached: Cached): void {
    this.#verified.delete(token)
    this.#cachedBytes -= cached.bytes
  }

  async #decrypt(token: string): Promise<Cached | undefined> {
    // Visible ASCII only (2025-11-25 §Session Management); anything else is not ours.
    if (token.length > MAX_TOKEN || !/^[\x21-\x7e]+$/.test(token)) return undefined
    const { jwtDecrypt } = await (jose ??= import('jose'))
    let value: Record<string, unknown>
    try {
      const decrypted = await jwtDecrypt(token, await this.#keyBytes(), {
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256GCM'],
        typ: PROTECTED_HEADER.typ,
      })
      value = decrypted.payload
    } catch {
      return undefined // forged, altered, expired, or made with another secret
    }
    if (typeof value.sid !== 'string' || typeof value.pv !== 'string' || !isRecord(value.caps))
      return undefined
    if (typeof value.exp !== 'number') return undefined
    const session: {
      -readonly [K in keyof LegacySession]: LegacySession[K]
    } = {
      id: value.sid,
      version: value.pv,
      capabilities: value.caps as ClientCapabilities,
      expiresAt: value.exp * 1000,
      // A token minted before `st` existed: its start follows from its expiry.
      startedAt: typeof value.st === 'number' ? value.st : value.exp * 1000 - this.ttlMs,
    }
    if (isRecord(value.ci)) session.clientInfo = value.ci as unknown as Implementation
    const principal = parseOwnerKey(value.p)
    if (principal !== undefined) session.principal = principal
    // The id's characters, and the parsed session: objects hold about three times their JSON's bytes.
    return { session, bytes: token.length * 4 }
  }
}
