/** The default token store: this process only, gone when it exits. */
import type { ClientRecord, TokenRecord, TokenStore } from './types.js'

/**
 * Keeps OAuth tokens and client registrations in memory, for the life of the process (the default store).
 *
 * @example
 * ```ts
 * const client = connect(
 *   { url: 'https://mcp.example.com/mcp' },
 *   { auth: { redirectUri, authorize, store: new MemoryTokenStore() } },
 * )
 * ```
 */
export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, TokenRecord>()
  readonly #clients = new Map<string, ClientRecord>()

  getTokens(resource: string): Promise<TokenRecord | undefined> {
    return Promise.resolve(this.#tokens.get(resource))
  }
  setTokens(resource: string, tokens: TokenRecord): Promise<void> {
    this.#tokens.set(resource, tokens)
    return Promise.resolve()
  }
  deleteTokens(resource: string): Promise<void> {
    this.#tokens.delete(resource)
    return Promise.resolve()
  }
  getClient(issuer: string): Promise<ClientRecord | undefined> {
    return Promise.resolve(this.#clients.get(issuer))
  }
  setClient(issuer: string, client: ClientRecord): Promise<void> {
    this.#clients.set(issuer, client)
    return Promise.resolve()
  }
}
