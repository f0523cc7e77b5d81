/**
 * Built-in JWT access-token verifier on `jose`: signature by a JWKS URL or a fixed key, issuer, audience
 * (always: a token minted for another resource is refused), an algorithm allow-list, and expiry.
 * `jose` is imported when a verifier is made, so servers without JWT auth never load it.
 */
import type { CryptoKey, errors, JWK, JWTPayload, JWTVerifyGetKey, KeyObject } from 'jose'
import type { AuthInfo } from '../../protocol/exchange.js'
import { cachedVerifier, type VerifierCacheOptions } from './cache.js'
import { InvalidTokenError, type TokenVerifier } from './verifier.js'

export interface JwtVerifierOptions {
  /** Expected `iss` (one or several). */
  readonly issuer: string | readonly string[]
  /** Expected `aud`: this resource server's canonical URI (RFC 8707). Required. */
  readonly audience: string | readonly string[]
  /** Where the authorization server publishes its signing keys. */
  readonly jwksUrl?: string | URL
  /** A fixed verification key instead of a JWKS URL (public key, JWK, or HMAC secret bytes). */
  readonly key?: CryptoKey | KeyObject | JWK | Uint8Array
  /** Accepted `alg` values (default RS256, PS256, ES256, EdDSA; HS256 for a secret key). */
  readonly algorithms?: readonly string[]
  /** Clock skew tolerated on `exp`/`nbf`, in seconds (default 5). */
  readonly clockToleranceSec?: number
  /** Refuse tokens issued longer ago than this, in seconds (needs `iat`). */
  readonly maxTokenAgeSec?: number
  /** Keep verified tokens until their `exp` (at most 5 minutes by default); `false` checks every request. */
  readonly cache?: VerifierCacheOptions | false
}

const ASYMMETRIC = ['RS256', 'PS256', 'ES256', 'EdDSA']

/** Space-separated `scope` (RFC 8693/9068) or an `scp` array/string (common in other servers). */
function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean)
  if (Array.isArray(raw)) return raw.filter((scope): scope is string => typeof scope === 'string')
  return []
}

/**
 * A token verifier for JWT access tokens: checks signature (from a JWKS URL or a key), issuer, audience and expiry.
 *
 * @example
 * ```ts
 * const verify = jwtVerifier({
 *   issuer: 'https://auth.example.com',
 *   audience: 'https://mcp.example.com/mcp',
 *   jwksUrl: 'https://auth.example.com/.well-known/jwks.json',
 * })
 * const auth = await verify(token) // throws InvalidTokenError for a token to refuse
 * ```
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  if (!options.issuer || (Array.isArray(options.issuer) && options.issuer.length === 0))
    throw new TypeError('jwtVerifier needs an issuer')
  if (!options.audience || (Array.isArray(options.audience) && options.audience.length === 0))
    throw new TypeError('jwtVerifier needs an audience (the resource server URI)')
  if ((options.jwksUrl === undefined) === (options.key === undefined))
    throw new TypeError('jwtVerifier needs exactly one of jwksUrl and key')
  const secret = options.key instanceof Uint8Array
  const algorithms = [...(options.algorithms ?? (secret ? ['HS256'] : ASYMMETRIC))]
  const jwksUrl = options.jwksUrl === undefined ? undefined : new URL(options.jwksUrl)
  const key = options.key as CryptoKey | KeyObject | JWK | Uint8Array
  const ready = import('jose').then(async (jose) => {
    let keyLookup: JWTVerifyGetKey | CryptoKey | KeyObject | Uint8Array
    if (jwksUrl !== undefined) {
      keyLookup = jose.createRemoteJWKSet(jwksUrl, { timeoutDuration: 5_000, cooldownDuration: 30_000 })
    } else {
      keyLookup =
        typeof key === 'object' && !(key instanceof Uint8Array) && 'kty' in key
          ? ((await jose.importJWK(key as JWK, (key as JWK).alg ?? algorithms[0])) as CryptoKey | Uint8Array)
          : (key as CryptoKey | KeyObject | Uint8Array)
    }
    return { jose, keyLookup }
  })
  const verifyOptions = {
    issuer: options.issuer as string | string[],
    audience: options.audience as string | string[],
    algorithms,
    clockTolerance: options.clockToleranceSec ?? 5,
    requiredClaims: ['exp'],
    ...(options.maxTokenAgeSec !== undefined && { maxTokenAge: options.maxTokenAgeSec }),
  }

  const verify: TokenVerifier = async (token) => {
    let payload: JWTPayload
    const { jose, keyLookup } = await ready
    try {
      const verified =
        typeof keyLookup === 'function'
          ? await jose.jwtVerify(token, keyLookup, verifyOptions)
          : await jose.jwtVerify(token, keyLookup, verifyOptions)
      payload = verified.payload
    } catch (error) {
      // Infrastructure trouble (the JWKS endpoint is down) is not the token's fault: let it surface as such.
      const { errors } = jose
      if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) throw error
      throw new InvalidTokenError(describe(errors, error))
    }
    const clientId = [payload.client_id, payload.azp].find((v) => typeof v === 'string' && v !== '')
    const user = typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : undefined
    const subject = user ?? clientId
    if (typeof subject !== 'string')
      throw new InvalidTokenError('token has no subject (sub, client_id or azp)')
    const auth: AuthInfo = {
      subject,
      // A client-credentials token names a client, not a user: keep the two apart (see `authPrincipal`).
      subjectKind: user === undefined ? 'client' : 'user',
      scopes: scopesOf(payload),
      claims: payload,
      ...(typeof payload.exp === 'number' && { expiresAt: payload.exp }),
      ...(typeof clientId === 'string' && { clientId }),
    }
    return auth
  }
  if (options.cache === false) return verify
  const maxTokenAgeMs = (options.maxTokenAgeSec ?? Infinity) * 1000
  return cachedVerifier(verify, {
    ...options.cache,
    // Never past `exp`, nor past `iat` + `maxTokenAgeSec` when that is set.
    validUntil: ({ claims }) => {
      const exp = typeof claims?.exp === 'number' ? claims.exp * 1000 : Infinity
      if (maxTokenAgeMs === Infinity) return exp
      // jose refuses a token without `iat` when a maximum age is set, so `iat` is there.
      return Math.min(exp, (claims?.iat as number) * 1000 + maxTokenAgeMs)
    },
  })
}

type JoseErrors = typeof errors

function describe(errors: JoseErrors, error: InstanceType<JoseErrors['JOSEError']>): string {
  if (error instanceof errors.JWTExpired) return 'token expired'
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'token is not meant for this resource (audience mismatch)'
    if (error.claim === 'iss') return 'token issuer is not trusted'
    return `token claim ${error.claim} is invalid`
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'token signing algorithm is not allowed'
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid'
  if (error instanceof errors.JWKSNoMatchingKey) return 'token signing key is unknown'
  return 'token is malformed'
}
