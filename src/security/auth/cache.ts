/**
 * Verifies each bearer token once: a client sends the same token with every request, and checking a
 * signature costs far more than the rest of a request. A verified identity is kept until the token's `exp`
 * (never past it) and for at most `maxAgeMs`, so a rotated key or a revoked token stops working within that
 * bound. Refused tokens are never kept: each is checked again, so a cache entry always means "was valid".
 */
import type { LRUCache } from 'lru-cache'
import type { AuthInfo } from '../../protocol/exchange.js'
import { lazyLru } from '../lru.js'
import type { TokenVerifier } from './verifier.js'

export interface VerifierCacheOptions {
  /** Most tokens kept (default 10 000); the least recently used go first. */
  readonly maxEntries?: number
  /** Longest a verified token is trusted without checking again, in ms (default 5 minutes). */
  readonly maxAgeMs?: number
  /** Clock, for tests (default Date.now). */
  readonly now?: () => number
}

interface CacheSettings extends VerifierCacheOptions {
  /** When a verified identity stops being valid, in epoch ms (default: its `expiresAt`). */
  readonly validUntil?: (auth: AuthInfo) => number
}

/** How many trailing characters of a token key the cache (a SHA-256 signature in base64url is 43). */
const KEY_LENGTH = 32
const keyOf = (token: string): string => (token.length > KEY_LENGTH ? token.slice(-KEY_LENGTH) : token)

/** A verifier with a cache, which can also be asked for a verified identity without verifying. */
export interface CachingTokenVerifier extends TokenVerifier {
  readonly cached: (token: string) => AuthInfo | undefined
}

export function cachedVerifier(verify: TokenVerifier, options: CacheSettings = {}): CachingTokenVerifier {
  const now = options.now ?? Date.now
  const maxAgeMs = options.maxAgeMs ?? 5 * 60_000
  const validUntil =
    options.validUntil ??
    ((auth: AuthInfo) => (auth.expiresAt === undefined ? Infinity : auth.expiresAt * 1000))
  // Keyed by the token's last characters, not the whole token: a map lookup hashes its whole key, and a
  // token (several hundred characters for RS256) arrives as a new string with every request. For a JWT
  // these characters are signature bytes; a hit still needs the whole token to be equal, so two tokens
  // sharing a tail only push each other out.
  type Entry = { token: string; auth: AuthInfo; until: number }
  const max = options.maxEntries ?? 10_000
  // Made with the first verified token: lru-cache is loaded while that token's signature is checked.
  let cache: LRUCache<string, Entry> | undefined
  /** Verifications under way, by token; each entry goes when its verification settles. */
  const inFlight = new Map<string, Promise<AuthInfo>>()
  const remember = (token: string, auth: AuthInfo): AuthInfo => {
    const until = Math.min(now() + maxAgeMs, validUntil(auth))
    if (until <= now()) return auth
    // Shared by every request that presents this token: frozen, so no request can change another's view.
    const kept = Object.freeze(auth)
    const LRU = lazyLru.loaded()
    if (LRU) (cache ??= new LRU<string, Entry>({ max })).set(keyOf(token), { token, auth: kept, until })
    return kept
  }
  /** The identity of a token verified before and still trusted; undefined otherwise (never verifies). */
  const cached = (token: string): AuthInfo | undefined => {
    const key = keyOf(token)
    const hit = cache?.get(key)
    if (hit === undefined || hit.token !== token) return undefined
    if (now() < hit.until) return hit.auth
    cache?.delete(key)
    return undefined
  }
  // A hit answers synchronously: no promise per request for a token seen before.
  const verifier: TokenVerifier = (token) => {
    const known = cached(token)
    if (known !== undefined) return known
    // A miss stays asynchronous, so a refusal is always a rejection. Requests that bring a new token
    // together (a client's first burst) share its one verification.
    let pending = inFlight.get(token)
    if (pending === undefined) {
      pending = (async () => {
        const [auth] = await Promise.all([verify(token), lazyLru.load().catch(() => undefined)])
        return remember(token, auth)
      })()
      inFlight.set(token, pending)
      const settled = (): void => void inFlight.delete(token)
      pending.then(settled, settled)
    }
    return pending
  }
  return Object.assign(verifier, { cached })
}
