/**
 * toolwire as an OAuth 2.1 resource server (authorization §Token Handling): every HTTP request carries a
 * bearer token that is verified on its own (no handshake to bypass), the protected-resource metadata
 * (RFC 9728) is published, failures are 401 with a `WWW-Authenticate` challenge pointing at it, and
 * missing scopes are 403 `insufficient_scope` so clients can step up.
 */
import type { AuthInfo } from '../../protocol/exchange.js'
import type { AuthOutcome, AuthRequest, HttpDocument } from '../../protocol/handler.js'
import { encodeError } from '../../protocol/encode.js'
import {
  authUnavailable,
  insufficientScope,
  type McpError,
  tooManyRequests,
  unauthorized,
} from '../../wire/errors.js'
import { bearerChallenge, scopeChallenge } from '../errors.js'
import type { CachingTokenVerifier } from './cache.js'
import { jwtVerifier, type JwtVerifierOptions } from './jwt.js'
import { InvalidTokenError, type TokenVerifier } from './verifier.js'
import { addressKey } from '../../protocol/address.js'
import { ownerKey } from '../../protocol/principal.js'
import { type Bucket, checkLimit, type Limit, MemoryRateLimitStore } from '../rate-limit.js'

const MAX_BLOCKED = 10_000

export interface BearerAuthOptions {
  /** Canonical URI of the MCP endpoint, e.g. `https://mcp.example.com/mcp`; tokens must name it in `aud`. */
  readonly resource: string
  /** Authorization servers that issue tokens for this resource (at least one, RFC 9728). */
  readonly authorizationServers: readonly string[]
  /** Built-in JWT verification (audience defaults to `resource`). */
  readonly jwt?: Omit<JwtVerifierOptions, 'audience'> & { audience?: string | readonly string[] }
  /** Or any verifier (introspection, opaque tokens …). It must check the audience itself. */
  readonly verifier?: TokenVerifier
  /** Scopes every request needs (default none). */
  readonly requiredScopes?: readonly string[]
  /** `scopes_supported` in the metadata (default: required scopes plus every tool's scopes). */
  readonly scopesSupported?: readonly string[]
  /** Broader scopes and the narrower ones they imply, e.g. `{ 'files:write': ['files:read'] }`. */
  readonly scopeHierarchy?: Readonly<Record<string, readonly string[]>>
  /** Human-readable name and documentation URL for the metadata document. */
  readonly resourceName?: string
  readonly resourceDocumentation?: string
  /**
   * Missing or bad tokens accepted per client address before it gets 429 for the rest of the window
   * (default 60 per minute); this keeps token guessing and verification floods cheap. `false` turns it off.
   */
  readonly failedAttempts?: Limit | false
}

/** `Bearer <b64token>` (RFC 6750 §2.1), surrounding white space allowed. */
const BEARER = /^\s*Bearer +([A-Za-z0-9\-._~+/]+=*)\s*$/i
const WELL_KNOWN = '/.well-known/oauth-protected-resource'

export class BearerAuth {
  readonly resource: string
  /** Where the metadata document is served (the path-inserted form of RFC 9728 §3.1). */
  readonly metadataUrl: string
  readonly requiredScopes: readonly string[]
  /** Told when the verifier failed for a reason other than the token (the server logs it). */
  onVerifierFailure: ((error: unknown) => void) | undefined
  readonly #paths: ReadonlySet<string>
  readonly #verify: TokenVerifier
  /** The verifier's cache, when it has one (the built-in JWT verifier does unless told not to). */
  readonly #cached: CachingTokenVerifier['cached'] | undefined
  readonly #options: BearerAuthOptions
  readonly #audiences: ReadonlySet<string>
  readonly #implied: ReadonlyMap<string, readonly string[]>
  readonly #failures: { readonly store: MemoryRateLimitStore; readonly bucket: Bucket } | undefined
  /** Addresses refused until a time; bounded, oldest dropped first. */
  readonly #blocked = new Map<string, number>()
  /** The verdict on each cached (frozen) identity; it goes when the verifier's cache lets go of it. */
  readonly #verdicts = new WeakMap<AuthInfo, AuthOutcome>()

  constructor(options: BearerAuthOptions) {
    let url: URL
    try {
      url = new URL(options.resource)
    } catch {
      throw new TypeError(`bearerAuth: resource must be an absolute URL, got ${options.resource}`)
    }
    if (url.hash) throw new TypeError('bearerAuth: resource must not have a fragment')
    if (options.authorizationServers.length === 0)
      throw new TypeError('bearerAuth: name at least one authorization server')
    if ((options.jwt === undefined) === (options.verifier === undefined))
      throw new TypeError('bearerAuth: give exactly one of jwt and verifier')
    this.#options = options
    this.resource = options.resource
    this.requiredScopes = options.requiredScopes ?? []
    const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')
    this.metadataUrl = `${url.origin}${WELL_KNOWN}${path}`
    this.#paths = new Set([`${WELL_KNOWN}${path}`, WELL_KNOWN])
    const audience = options.jwt?.audience ?? options.resource
    this.#audiences = new Set(typeof audience === 'string' ? [audience] : audience)
    this.#verify = options.verifier ?? jwtVerifier({ ...options.jwt!, audience: [...this.#audiences] })
    this.#cached = (this.#verify as Partial<CachingTokenVerifier>).cached
    this.#implied = new Map(Object.entries(options.scopeHierarchy ?? {}))
    const failedAttempts = options.failedAttempts ?? { points: 60, durationMs: 60_000 }
    if (failedAttempts) checkLimit(failedAttempts, 'bearerAuth.failedAttempts')
    this.#failures = failedAttempts
      ? { store: new MemoryRateLimitStore(), bucket: { name: 'auth-failures', ...failedAttempts } }
      : undefined
  }

  /**
   * The HttpCore `authenticate` hook. A token seen before is answered without a promise or an allocation:
   * the verifier's cache hands back the same frozen identity, and the verdict on it is kept beside it.
   */
  readonly authenticate = (request: AuthRequest): AuthOutcome | Promise<AuthOutcome> => {
    const failures = this.#failures
    if (!failures || request.remoteAddress === undefined) return this.#authenticate(request)
    // The address is only looked at when some address is blocked or this request is refused.
    if (this.#blocked.size > 0) {
      const address = addressKey(request.remoteAddress)
      const until = this.#blocked.get(address)
      if (until !== undefined) {
        if (until > Date.now()) return this.#refuse(this.#tooManyFailures(until - Date.now()))
        this.#blocked.delete(address)
      }
    }
    const outcome = this.#authenticate(request)
    if (outcome instanceof Promise)
      return outcome.then((settled) => this.#countFailure(settled, request.remoteAddress as string, failures))
    return outcome.ok || outcome.status !== 401
      ? outcome
      : this.#countFailure(outcome, request.remoteAddress, failures)
  }

  /** Counts a 401 against the client's address; past the limit the address gets 429 for a while. */
  async #countFailure(
    outcome: AuthOutcome,
    remoteAddress: string,
    failures: { readonly store: MemoryRateLimitStore; readonly bucket: Bucket },
  ): Promise<AuthOutcome> {
    if (outcome.ok || outcome.status !== 401) return outcome
    const address = addressKey(remoteAddress)
    const consumed = await failures.store.consume(
      failures.bucket,
      ownerKey({ kind: 'anonymous', id: address }),
    )
    if (consumed.allowed) return outcome
    if (this.#blocked.size >= MAX_BLOCKED) this.#blocked.delete(this.#blocked.keys().next().value as string)
    this.#blocked.set(address, Date.now() + consumed.retryAfterMs)
    return this.#refuse(this.#tooManyFailures(consumed.retryAfterMs))
  }

  #tooManyFailures(retryAfterMs: number): McpError {
    return tooManyRequests(retryAfterMs, 'too many missing or invalid access tokens from this address')
  }

  #authenticate(request: AuthRequest): AuthOutcome | Promise<AuthOutcome> {
    const header = request.header('authorization')
    // A token verified before is found by its exact text, so it needs no syntax check (that scans every
    // character, which costs more than the lookup): it passed one when it was first seen.
    if (this.#cached !== undefined && header !== undefined && header.startsWith('Bearer ')) {
      const known = this.#cached(header.slice(7))
      if (known !== undefined) return this.#verdict(known)
    }
    const match = header === undefined ? null : BEARER.exec(header)
    if (match === null) {
      if (header !== undefined && /^\s*bearer\b/i.test(header))
        return this.#refuse(this.#invalid('the Authorization header is malformed'))
      return this.#refuse(
        unauthorized(
          bearerChallenge({
            resource_metadata: this.metadataUrl,
            scope: this.requiredScopes.length > 0 ? this.requiredScopes.join(' ') : undefined,
          }),
          'a bearer access token is required',
        ),
      )
    }
    let verified: AuthInfo | Promise<AuthInfo>
    try {
      verified = this.#verify(match[1] as string)
    } catch (error) {
      return this.#verifierFailed(error)
    }
    if (verified instanceof Promise)
      return verified.then(
        (auth) => this.#verdict(auth),
        (error: unknown) => this.#verifierFailed(error),
      )
    return this.#verdict(verified)
  }

  #verifierFailed(error: unknown): AuthOutcome {
    if (error instanceof InvalidTokenError) return this.#refuse(this.#invalid(error.message))
    // The verifier could not decide (JWKS endpoint unreachable …): not the client's fault, so no 401.
    this.onVerifierFailure?.(error)
    return this.#refuse(authUnavailable())
  }

  /**
   * Audience and required scopes for a verified identity. A frozen identity (the verifier cache's) always
   * gets the same answer, so the answer is kept with it and every request presenting that token shares one
   * principal object.
   */
  #verdict(auth: AuthInfo): AuthOutcome {
    const kept = this.#verdicts.get(auth)
    if (kept !== undefined) return kept
    const verdict = this.#judge(auth)
    if (Object.isFrozen(auth)) this.#verdicts.set(auth, verdict)
    return verdict
  }

  #judge(auth: AuthInfo): AuthOutcome {
    const aud = auth.claims?.aud
    if (aud !== undefined && !(Array.isArray(aud) ? aud : [aud]).some((a) => this.#audiences.has(String(a))))
      return this.#refuse(this.#invalid('token is not meant for this resource (audience mismatch)'))
    const granted: AuthInfo = Object.freeze({ ...auth, scopes: Object.freeze(this.#expand(auth.scopes)) })
    const missing = this.requiredScopes.filter((scope) => !granted.scopes.includes(scope))
    if (missing.length > 0) {
      return this.#refuse(
        insufficientScope(
          this.requiredScopes,
          scopeChallenge(
            this.requiredScopes,
            this.metadataUrl,
            `this server needs scope ${missing.join(' ')}`,
          ),
          `this server needs scope ${missing.join(' ')}`,
        ),
      )
    }
    return { ok: true, auth: granted }
  }

  /** 403 for a tool the caller's scopes do not allow, naming everything the call needs. */
  toolRefusal(tool: string, scopes: readonly string[]): McpError {
    const needed = [...new Set([...this.requiredScopes, ...scopes])]
    const description = `tool ${tool} needs scope ${scopes.join(' ')}`
    return insufficientScope(needed, scopeChallenge(needed, this.metadataUrl, description), description)
  }

  /** The RFC 9728 document for GETs of the well-known paths; undefined for any other request. */
  document(method: string, path: string, toolScopes: Iterable<string>): HttpDocument | undefined {
    if (!this.#paths.has(path)) return undefined
    const headers = { 'content-type': 'application/json', 'access-control-allow-origin': '*' }
    if (method !== 'GET' && method !== 'HEAD')
      return {
        status: 405,
        headers: { ...headers, allow: 'GET, HEAD' },
        body: '{"error":"method not allowed"}',
      }
    const scopes = this.#options.scopesSupported ?? [...new Set([...this.requiredScopes, ...toolScopes])]
    const metadata: Record<string, unknown> = {
      resource: this.resource,
      authorization_servers: [...this.#options.authorizationServers],
      bearer_methods_supported: ['header'],
      // offline_access is for authorization servers to offer, not for resources to ask (authorization
      // §Refresh Tokens).
      scopes_supported: scopes.filter((scope) => scope !== 'offline_access'),
    }
    if (this.#options.resourceName) metadata.resource_name = this.#options.resourceName
    if (this.#options.resourceDocumentation)
      metadata.resource_documentation = this.#options.resourceDocumentation
    return {
      status: 200,
      headers: { ...headers, 'cache-control': 'max-age=3600' },
      body: JSON.stringify(metadata),
    }
  }

  /** Granted scopes plus every scope they imply, transitively. */
  #expand(scopes: readonly string[]): string[] {
    if (this.#implied.size === 0) return [...scopes]
    const all = new Set<string>()
    const queue = [...scopes]
    for (let scope = queue.pop(); scope !== undefined; scope = queue.pop()) {
      if (all.has(scope)) continue
      all.add(scope)
      queue.push(...(this.#implied.get(scope) ?? []))
    }
    return [...all]
  }

  #invalid(description: string): McpError {
    return unauthorized(
      bearerChallenge({
        error: 'invalid_token',
        error_description: description,
        resource_metadata: this.metadataUrl,
      }),
      description,
    )
  }

  #refuse(error: McpError): AuthOutcome {
    return {
      ok: false,
      status: error.status,
      headers: { ...error.headers },
      body: encodeError(undefined, error),
    }
  }
}

/**
 * Turns on bearer-token authentication for a server's HTTP transports (`security.auth`).
 *
 * @example
 * ```ts
 * const server = defineServer({
 *   name: 'notes',
 *   version: '1.0.0',
 *   tools: [defineTool({ name: 'notes_read', scopes: ['notes:read'], handler: () => '…' })],
 *   security: {
 *     auth: bearerAuth({
 *       resource: 'https://mcp.example.com/mcp',
 *       authorizationServers: ['https://auth.example.com'],
 *       jwt: { issuer: 'https://auth.example.com', jwksUrl: 'https://auth.example.com/.well-known/jwks.json' },
 *     }),
 *   },
 * })
 * ```
 */
export function bearerAuth(options: BearerAuthOptions): BearerAuth {
  return new BearerAuth(options)
}
