/** The pluggable token check of the resource server: a bearer token in, the caller's identity out. */
import type { AuthInfo } from '../../protocol/exchange.js'

/** Verifies an access token; throws `InvalidTokenError` for a token to refuse (401). */
export type TokenVerifier = (token: string) => Promise<AuthInfo> | AuthInfo

/** A token that is malformed, expired, badly signed, or meant for another resource. */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError'
}
