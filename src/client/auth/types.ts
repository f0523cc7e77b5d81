/**
 * What the OAuth client keeps and what it is configured with (basic/authorization in the 2026-07-28
 * specification). Tokens are kept per resource (the MCP server), client registrations per authorization server
 * issuer (client-registration §Authorization Server Binding).
 */

/** Tokens for one MCP server. Never logged; sent only to that server's origin. */
export interface TokenRecord {
  readonly accessToken: string
  readonly tokenType: string
  readonly refreshToken?: string
  /** Epoch milliseconds; absent when the authorization server did not say. */
  readonly expiresAt?: number
  /** The scope the token was granted (or, when the server did not say, requested). */
  readonly scope?: string
  /** The issuer that minted it: a refresh goes only to that issuer's token endpoint. */
  readonly issuer: string
  /** The resource identifier sent as RFC 8707 `resource`. */
  readonly resource: string
  /** For a DPoP-bound token (RFC 9449): the private key it is bound to, as a JWK. As secret as the token. */
  readonly dpopKey?: Readonly<Record<string, unknown>>
}

/** A client identity at one authorization server. */
export interface ClientRecord {
  readonly clientId: string
  readonly clientSecret?: string
  readonly tokenEndpointAuthMethod: 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt'
  readonly redirectUris?: readonly string[]
  readonly issuer: string
}

/**
 * Where tokens and registrations live. Implement it to keep them in a keychain, a database, …
 *
 * @example
 * ```ts
 * const client = connect({ url }, { auth: { redirectUri, authorize, store: new MemoryTokenStore() } })
 * ```
 */
export interface TokenStore {
  getTokens(resource: string): Promise<TokenRecord | undefined>
  setTokens(resource: string, tokens: TokenRecord): Promise<void>
  deleteTokens(resource: string): Promise<void>
  getClient(issuer: string): Promise<ClientRecord | undefined>
  setClient(issuer: string, client: ClientRecord): Promise<void>
}

/** A client registered with an authorization server out of band (client-registration §Pre-registration). */
export interface PreRegisteredClient {
  /** The authorization server's issuer; the credentials are used with no other (§Authorization Server Binding). */
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret?: string
  readonly tokenEndpointAuthMethod?: 'none' | 'client_secret_basic' | 'client_secret_post'
}

/** A machine client: the client credentials grant instead of a user's authorization. */
export interface ClientCredentials {
  readonly clientId: string
  /** client_secret_basic or client_secret_post, whichever the server supports. */
  readonly clientSecret?: string
  /** private_key_jwt (RFC 7523): a PKCS#8 PEM or a CryptoKey. */
  readonly privateKey?: string | CryptoKey
  /** The private key's algorithm (default ES256). */
  readonly algorithm?: string
  /** When set, the credentials are used only with this issuer. */
  readonly issuer?: string
  /** Scope to ask for when the server's challenge names none. */
  readonly scope?: string
}

export interface OAuthOptions {
  /** Default: in memory, for this process only. */
  readonly store?: TokenStore
  /** Where the authorization server sends the user back (loopback `http://127.0.0.1:PORT/…` or https). */
  readonly redirectUri?: string
  /**
   * Shows the authorization URL to the user (opens a browser) and resolves with the URL the authorization
   * server redirected back to (the callback, carrying `code`, `state`, `iss`). A redirect listener should
   * ignore callbacks whose `state` is not the authorization URL's and keep waiting: a response that does
   * not match ends the flow with an error, so resolving with a forged one lets anyone cancel the login.
   */
  readonly authorize?: (authorizationUrl: URL, signal: AbortSignal) => Promise<URL | string>
  /** An https URL hosting this client's metadata document (client-registration §Client ID Metadata Documents). */
  readonly clientMetadataUrl?: string
  /** Clients registered out of band, one per authorization server. */
  readonly preRegistered?: readonly PreRegisteredClient[]
  /** Use the client credentials grant (no user involved) instead of the authorization code grant. */
  readonly clientCredentials?: ClientCredentials
  /** Sent as `client_name` in dynamic client registration (default "toolwire"). */
  readonly clientName?: string
  /** Ask for refresh tokens (`offline_access` when the authorization server lists it). Default true. */
  readonly refreshTokens?: boolean
  /** Bind tokens to a key with DPoP (RFC 9449) when the authorization server supports ES256 proofs. Default true. */
  readonly dpop?: boolean
  /** How many step-up authorizations one request may trigger (default 2). */
  readonly maxStepUps?: number
  /** Per request to an authorization server or metadata document (default 15 s). */
  readonly timeoutMs?: number
  /** Largest metadata, registration or token response accepted (default 256 KiB). */
  readonly maxResponseBytes?: number
  /**
   * A custom fetch for requests to authorization servers and metadata (tests, proxies). Private addresses
   * are then judged only where a URL's host is an IP literal or `localhost`: the default one on Node also
   * judges the address each name resolves to.
   */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>
  /**
   * Which IP addresses count as private (loopback, link-local, RFC 1918, unique-local …): the OAuth client
   * fetches none of them for an MCP server that is not on one itself. Default: every address that is not
   * public unicast (`isPrivateAddress`).
   */
  readonly isPrivateAddress?: (address: string) => boolean
}
