/**
 * `requestState` sealing: an HMAC-SHA-256 protected, expiring envelope bound to the originating request
 * (method, tool/prompt name or URI, a digest of the arguments) and to the principal (patterns/mrtr §Security
 * Considerations). Web Crypto only, so it runs on every runtime; keys are imported once per secret.
 */
import { invalidParams } from '../../wire/errors.js'
import { isRecord } from '../../wire/jsonrpc.js'
import type { OwnerKey } from '../principal.js'
import { base64UrlToBytes, bytesToBase64Url } from '../../wire/base64.js'

export interface RequestStateOptions {
  /**
   * HMAC secret shared by every instance that may receive a retry (≥ 32 bytes recommended). Without one a
   * random per-process secret is used, so retries only succeed on the instance that asked.
   */
  readonly secret?: string | Uint8Array | undefined
  /** How long a retry may come after the question (default 10 minutes). */
  readonly ttlMs?: number
}

/** What a request is bound to; a retry must present the same values. */
export interface StateBinding {
  readonly method: string
  readonly name: string
  readonly argsDigest: string
  readonly principal: OwnerKey | undefined
}

/** The payload toolwire keeps inside `requestState`. */
export interface StatePayload {
  /** Answers collected in earlier rounds, by input key. */
  readonly answers: Record<string, unknown>
  /** Handler data carried across rounds (`ctx.input.data`). */
  readonly data?: unknown
}

interface Envelope {
  answers: Record<string, unknown>
  data?: unknown
  v: 1
  m: string
  n: string
  a: string
  p?: string
  exp: number
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** JSON with sorted object keys, so equal values always digest the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

export async function digest(value: unknown): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', encoder.encode(canonicalJson(value)))
  return bytesToBase64Url(new Uint8Array(hash))
}

const rejected = (why: string): never => {
  throw invalidParams(`Invalid requestState: ${why}`)
}

export class RequestStateCodec {
  readonly ttlMs: number
  /** Undefined until first use when random: touching Web Crypto at startup costs a few ms of cold start. */
  #secret: Uint8Array<ArrayBuffer> | undefined
  readonly #ephemeral: boolean
  #key: Promise<CryptoKey> | undefined
  #onEphemeral: (() => void) | undefined

  /** `onEphemeral` runs once, the first time a state is sealed with a random per-process secret. */
  constructor(options: RequestStateOptions = {}, onEphemeral?: () => void) {
    const { secret } = options
    this.ttlMs = options.ttlMs ?? 600_000
    if (!(this.ttlMs > 0)) throw new TypeError('requestState ttlMs must be positive')
    if (secret === undefined) {
      this.#ephemeral = true
    } else {
      this.#secret = typeof secret === 'string' ? encoder.encode(secret) : new Uint8Array(secret)
      if (this.#secret.length < 16) throw new TypeError('requestState secret must be at least 16 bytes')
      this.#ephemeral = false
    }
    this.#onEphemeral = onEphemeral
  }

  #hmacKey(): Promise<CryptoKey> {
    this.#secret ??= crypto.getRandomValues(new Uint8Array(32))
    this.#key ??= crypto.subtle.importKey('raw', this.#secret, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ])
    return this.#key
  }

  /**
   * A 256-bit key for another purpose, derived from the same secret with HKDF-SHA-256 (RFC 5869); `purpose`
   * separates the keys, so a value made with one never opens with another. Instances sharing the secret
   * derive the same key.
   */
  async deriveKey(purpose: string): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#ephemeral && this.#onEphemeral) {
      this.#onEphemeral()
      this.#onEphemeral = undefined
    }
    this.#secret ??= crypto.getRandomValues(new Uint8Array(32))
    const base = await crypto.subtle.importKey('raw', this.#secret, 'HKDF', false, ['deriveBits'])
    const info = encoder.encode(purpose)
    const bits = await crypto.subtle.deriveBits(
      { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info },
      base,
      256,
    )
    return new Uint8Array(bits)
  }

  async seal(binding: StateBinding, payload: StatePayload, now = Date.now()): Promise<string> {
    if (this.#ephemeral && this.#onEphemeral) {
      this.#onEphemeral()
      this.#onEphemeral = undefined
    }
    const envelope: Envelope = {
      v: 1,
      m: binding.method,
      n: binding.name,
      a: binding.argsDigest,
      exp: now + this.ttlMs,
      answers: payload.answers,
    }
    if (binding.principal !== undefined) envelope.p = binding.principal
    if (payload.data !== undefined) envelope.data = payload.data
    const body = bytesToBase64Url(encoder.encode(JSON.stringify(envelope)))
    const mac = await crypto.subtle.sign('HMAC', await this.#hmacKey(), encoder.encode(body))
    return `${body}.${bytesToBase64Url(new Uint8Array(mac))}`
  }

  /** Verifies and opens a state; anything forged, expired or bound elsewhere is -32602. */
  async open(state: unknown, binding: StateBinding, now = Date.now()): Promise<StatePayload> {
    if (typeof state !== 'string') return rejected('must be a string')
    const dot = state.indexOf('.')
    const macText = state.slice(dot + 1)
    const mac = dot > 0 ? base64UrlToBytes(macText) : undefined
    // Only the canonical spelling counts: base64 leaves spare bits that decode alike.
    if (!mac || bytesToBase64Url(mac) !== macText) return rejected('malformed')
    const body = state.slice(0, dot)
    const valid = await crypto.subtle.verify('HMAC', await this.#hmacKey(), mac, encoder.encode(body))
    if (!valid) return rejected('integrity check failed')
    let envelope: Envelope
    try {
      envelope = JSON.parse(decoder.decode(base64UrlToBytes(body))) as Envelope
    } catch {
      return rejected('malformed')
    }
    if (envelope.v !== 1 || !isRecord(envelope.answers)) return rejected('malformed')
    if (!(envelope.exp > now)) return rejected('expired, start the request again')
    if (envelope.m !== binding.method || envelope.n !== binding.name)
      return rejected(`issued for another request (${envelope.m} ${envelope.n})`)
    if (envelope.a !== binding.argsDigest) return rejected('the arguments changed since it was issued')
    if (envelope.p !== binding.principal) return rejected('issued to another principal')
    const payload: { answers: Record<string, unknown>; data?: unknown } = { answers: envelope.answers }
    if (envelope.data !== undefined) payload.data = envelope.data
    return payload
  }
}
