/** The pluggable token check of the resource server: a bearer token in, the caller's identity out. */
import type { AuthInfo } from '../../protocol/exchange.js'
import { ToolwireError, type ToolwireErrorCode } from '../../wire/toolwire-error.js'

/** Verifies an access token; throws `InvalidTokenError` for a token to refuse (401). */
export type TokenVerifier = (token: string) => Promise<AuthInfo> | AuthInfo

/**
 * A token that is malformed, expired, badly signed, or meant for another resource.
 *
 * @example
 * ```ts
 * const verifier: TokenVerifier = async (token) => {
 *   const session = await sessions.get(token)
 *   if (!session) throw new InvalidTokenError('unknown token') // answered with 401
 *   return { subject: session.userId, scopes: session.scopes, token }
 * }
 * ```
 */
export class InvalidTokenError extends ToolwireError {
  override readonly name = 'InvalidTokenError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_INVALID_TOKEN'
  }
}
