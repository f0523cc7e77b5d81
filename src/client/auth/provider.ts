/**
 * OAuthProvider: the HTTP transport's authorization. It puts the resource's token on requests to the MCP
 * server's origin (and nowhere else), refreshes it before it expires, answers a 401 by discovering the
 * authorization server and authorizing, and a 403 `insufficient_scope` by a bounded step-up
 * (basic/authorization §Scope Challenge Handling, §Step-Up Authorization Flow).
 */
import type { JWK } from 'jose'
import type * as oauth from 'oauth4webapi'
import { parseBearerChallenge, scopeSet, type BearerChallenge } from './challenge.js'
import { DpopKey } from './dpop.js'
import {
  discoverAuthorizationServer,
  discoverResource,
  type Fetch,
  type ResourceMetadata,
} from './discovery.js'
import { AuthorizationError } from './errors.js'
import { authorizationCodeGrant, clientCredentialsGrant, credentialsClient, refreshGrant } from './grants.js'
import { MemoryTokenStore } from './memory-store.js'
import { clientFor } from './registration.js'
import { oauthFetch } from './oauth-fetch.js'
import { safeFetch } from './safe-fetch.js'
import type { ClientRecord, OAuthOptions, TokenRecord, TokenStore } from './types.js'

/** A token this close to expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 60_000

/**
 * The OAuth 2.1 client of the MCP authorization spec: discovery, registration, authorization code with PKCE, refresh.
 *
 * @example
 * ```ts
 * const provider = new OAuthProvider('https://mcp.example.com/mcp', { redirectUri, authorize })
 * const client = connect({ url: 'https://mcp.example.com/mcp' }, { auth: provider })
 * ```
 */
export class OAuthProvider {
  readonly serverUrl: URL
  readonly store: TokenStore
  readonly #options: OAuthOptions
  readonly #fetch: Fetch
  /** Authorization flows run one at a time; concurrent 401s wait for the running one. */
  #flow: Promise<unknown> = Promise.resolve()
  /** The DPoP key of the current tokens, loaded once (it also remembers the server's nonce). */
  #dpop: { readonly x: unknown; readonly key: Promise<DpopKey> } | undefined

  constructor(serverUrl: string | URL, options: OAuthOptions = {}) {
    this.serverUrl = new URL(serverUrl)
    this.serverUrl.hash = ''
    this.#options = options
    this.store = options.store ?? new MemoryTokenStore()
    this.#fetch = safeFetch(oauthFetch(this.serverUrl, options))
  }

  /** Tokens are stored under the MCP server's URL. */
  get resourceKey(): string {
    return this.serverUrl.href
  }

  /** A stable key per token, for per-credential caches; never the token itself. */
  async credentialKey(): Promise<string> {
    const tokens = await this.store.getTokens(this.resourceKey)
    if (!tokens) return 'anonymous'
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(tokens.accessToken))
    const hex = Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('')
    return `oauth:${hex.slice(0, 32)}`
  }

  /** Sends `request` through `next` with authorization, handling 401 and 403 `insufficient_scope`. */
  async fetch(request: Request, next: (request: Request) => Promise<Response>): Promise<Response> {
    if (new URL(request.url).origin !== this.serverUrl.origin) return next(request)
    const body = request.body ? await request.arrayBuffer() : undefined
    const send = async (tokens: TokenRecord | undefined): Promise<Response> => {
      const headers = new Headers(request.headers)
      if (tokens?.dpopKey) {
        const key = await this.#dpopKey(tokens.dpopKey)
        headers.set('authorization', `DPoP ${tokens.accessToken}`)
        headers.set('dpop', await key.proof(request.method, request.url, tokens.accessToken))
      } else if (tokens) {
        headers.set('authorization', `Bearer ${tokens.accessToken}`)
      }
      return next(new Request(request, { headers, ...(body === undefined ? {} : { body }) }))
    }
    let tokens = await this.currentTokens()
    let response = await send(tokens)
    let reauthorized = false
    let nonceRetried = false
    let stepUps = 0
    for (;;) {
      const header = response.headers.get('www-authenticate')
      const challenge = parseBearerChallenge(header)
      const nonce = response.headers.get('dpop-nonce')
      if (
        response.status === 401 &&
        challenge?.error === 'use_dpop_nonce' &&
        nonce &&
        tokens?.dpopKey &&
        !nonceRetried
      ) {
        // RFC 9449 §9: the server wants its nonce in the proof; retry once with it.
        nonceRetried = true
        await response.body?.cancel()
        ;(await this.#dpopKey(tokens.dpopKey)).serverNonce = nonce
      } else if (response.status === 401 && !reauthorized) {
        reauthorized = true
        await response.body?.cancel()
        tokens = await this.#serialized(() => this.#recover(tokens, challenge, request.signal))
      } else if (
        response.status === 403 &&
        challenge?.error === 'insufficient_scope' &&
        stepUps < (this.#options.maxStepUps ?? 2) &&
        wouldWiden(tokens, challenge)
      ) {
        stepUps++
        await response.body?.cancel()
        tokens = await this.#serialized(() => this.authorize(challenge, request.signal))
      } else {
        return response
      }
      response = await send(tokens)
    }
  }

  /** The stored tokens, refreshed first when they are about to expire; undefined when there are none usable. */
  async currentTokens(): Promise<TokenRecord | undefined> {
    const tokens = await this.store.getTokens(this.resourceKey)
    if (!tokens || tokens.expiresAt === undefined || tokens.expiresAt - REFRESH_MARGIN_MS > Date.now()) {
      return tokens
    }
    return this.#serialized(async () => {
      const current = await this.store.getTokens(this.resourceKey)
      if (!current || current.expiresAt === undefined || current.expiresAt - REFRESH_MARGIN_MS > Date.now()) {
        return current
      }
      return this.#refreshOrDrop(current)
    })
  }

  /**
   * Runs discovery and authorization now, for the scope a challenge names (or the resource's default):
   * what `toolwire login` does. Resolves with the stored tokens.
   */
  async authorize(challenge?: BearerChallenge, signal?: AbortSignal): Promise<TokenRecord> {
    const { clientCredentials, redirectUri, authorize } = this.#options
    if (!clientCredentials && (!redirectUri || !authorize)) {
      throw new AuthorizationError(`${this.serverUrl.href} needs authorization`, { loginRequired: true })
    }
    const resource = await discoverResource(this.serverUrl, challenge?.resourceMetadata, this.#fetch)
    const issuer = resource.authorizationServers[0] as string
    const as = await discoverAuthorizationServer(issuer, this.#fetch)
    const previous = await this.store.getTokens(this.resourceKey)
    const scope = this.#selectScope(challenge, resource, as, previous)
    // Bind tokens only where both sides take DPoP: the authorization server lists ES256, and the resource
    // server challenged with the DPoP scheme or lists DPoP algorithms in its metadata (RFC 9728 §2).
    const resourceTakesDpop = challenge?.dpop === true || resource.dpopAlgorithms?.includes('ES256') === true
    const useDpop =
      this.#options.dpop !== false &&
      resourceTakesDpop &&
      as.dpop_signing_alg_values_supported?.includes('ES256') === true
    const dpop = useDpop ? await DpopKey.generate() : undefined
    const context = { as, resource: resource.resource, scope, fetch: this.#fetch, dpop }
    let tokens: TokenRecord
    if (clientCredentials) {
      tokens = await clientCredentialsGrant(context, clientCredentials)
    } else {
      const redirect = redirectUri as string
      const client = await clientFor(as, this.#options, this.store, redirect, this.#fetch)
      const abort = signal ?? new AbortController().signal
      tokens = await authorizationCodeGrant(context, client, this.#options, redirect, abort)
    }
    await this.store.setTokens(this.resourceKey, tokens)
    return tokens
  }

  /** Forgets this resource's tokens (`toolwire logout`). */
  async logout(): Promise<void> {
    await this.store.deleteTokens(this.resourceKey)
  }

  /**
   * After a 401: refresh when the resource still names the issuer of our tokens, else authorize anew
   * (with a new authorization server, never with the old one's client or tokens).
   */
  async #recover(
    tokens: TokenRecord | undefined,
    challenge: BearerChallenge | undefined,
    signal: AbortSignal,
  ): Promise<TokenRecord> {
    const latest = await this.store.getTokens(this.resourceKey)
    if (latest && tokens && latest.accessToken !== tokens.accessToken) return latest // another request won
    if (tokens?.refreshToken) {
      const resource = await discoverResource(this.serverUrl, challenge?.resourceMetadata, this.#fetch)
      if (resource.authorizationServers.includes(tokens.issuer)) {
        const refreshed = await this.#refreshOrDrop(tokens)
        if (refreshed) return refreshed
      }
    }
    return this.authorize(challenge, signal)
  }

  async #refreshOrDrop(tokens: TokenRecord): Promise<TokenRecord | undefined> {
    if (!tokens.refreshToken) return undefined
    try {
      const as = await discoverAuthorizationServer(tokens.issuer, this.#fetch)
      const client = await this.#knownClient(as)
      if (!client) return undefined
      const dpop = tokens.dpopKey ? await this.#dpopKey(tokens.dpopKey) : undefined
      const context = { as, resource: tokens.resource, scope: tokens.scope, fetch: this.#fetch, dpop }
      const refreshed = await refreshGrant(
        context,
        client,
        { ...tokens, refreshToken: tokens.refreshToken },
        this.#options.clientCredentials,
      )
      await this.store.setTokens(this.resourceKey, refreshed)
      return refreshed
    } catch {
      // A refused or failed refresh means authorizing again; the reason is not worth surfacing here.
      await this.store.deleteTokens(this.resourceKey)
      return undefined
    }
  }

  /** The client identity already established with this issuer, without registering a new one. */
  async #knownClient(as: oauth.AuthorizationServer): Promise<ClientRecord | undefined> {
    const options = this.#options
    if (options.clientCredentials) return credentialsClient(as, options.clientCredentials)
    if (options.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
      return { clientId: options.clientMetadataUrl, tokenEndpointAuthMethod: 'none', issuer: as.issuer }
    }
    const pre = options.preRegistered?.find((client) => client.issuer === as.issuer)
    if (pre) return clientFor(as, options, this.store, options.redirectUri ?? '', this.#fetch)
    const stored = await this.store.getClient(as.issuer)
    return stored?.issuer === as.issuer ? stored : undefined
  }

  /**
   * basic/authorization §Scope Selection Strategy: the challenge's scope, else the resource's
   * `scopes_supported`, else none; on re-authorization the union with what was asked before (§Step-Up
   * Authorization Flow); `offline_access` only when the authorization server lists it (§Refresh Tokens).
   */
  #selectScope(
    challenge: BearerChallenge | undefined,
    resource: ResourceMetadata,
    as: oauth.AuthorizationServer,
    previous: TokenRecord | undefined,
  ): string | undefined {
    const credentials = this.#options.clientCredentials
    const wanted = challenge?.scope
      ? scopeSet(challenge.scope)
      : credentials?.scope
        ? scopeSet(credentials.scope)
        : [...(resource.scopesSupported ?? [])]
    const sameIssuer = previous?.issuer === as.issuer
    const scopes = new Set([...(sameIssuer ? scopeSet(previous?.scope) : []), ...wanted])
    if (
      !credentials &&
      this.#options.refreshTokens !== false &&
      as.scopes_supported?.includes('offline_access')
    ) {
      scopes.add('offline_access')
    } else if (!as.scopes_supported?.includes('offline_access')) {
      scopes.delete('offline_access')
    }
    return scopes.size > 0 ? [...scopes].join(' ') : undefined
  }

  #dpopKey(jwk: Readonly<Record<string, unknown>>): Promise<DpopKey> {
    const cached = this.#dpop
    if (cached && cached.x === jwk.x) return cached.key
    const key = DpopKey.fromJwk(jwk as JWK)
    this.#dpop = { x: jwk.x, key }
    return key
  }

  #serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#flow.then(task, task)
    this.#flow = run.catch(() => undefined)
    return run
  }
}

/** A step-up helps only if the challenge names a scope the current token was not granted. */
function wouldWiden(tokens: TokenRecord | undefined, challenge: BearerChallenge): boolean {
  if (!tokens) return true
  const granted = new Set(scopeSet(tokens.scope))
  const wanted = scopeSet(challenge.scope)
  return wanted.length > 0 && wanted.some((scope) => !granted.has(scope))
}
