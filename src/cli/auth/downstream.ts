/**
 * Who may call a server the CLI serves over HTTP (`bridge --http`, `gateway`): a shared bearer token read
 * from the environment (never from the command line, where `ps` shows it), OAuth access tokens (JWTs) from an
 * authorization server checked against its JWKS, or both. Mapped onto `bearerAuth`, so refusals are the
 * server's usual 401 with a `WWW-Authenticate` challenge naming the protected-resource metadata
 * (authorization §Token Handling), and failed attempts per address are limited as for any server.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { Command } from 'commander'
import type { AuthInfo } from '../../protocol/exchange.js'
import { type BearerAuth, bearerAuth } from '../../security/auth/bearer.js'
import { jwtVerifier } from '../../security/auth/jwt.js'
import { InvalidTokenError, type TokenVerifier } from '../../security/auth/verifier.js'
import { UsageError } from '../client/target.js'

export interface DownstreamAuthFlags {
  readonly bearerTokenEnv?: string
  readonly jwksUrl?: string
  readonly issuer?: string
  readonly audience?: string
  readonly resource?: string
}

/** Adds the downstream auth options to an HTTP-serving command. */
export function withDownstreamAuth(command: Command): Command {
  return command
    .option(
      '--bearer-token-env <name>',
      'require "Authorization: Bearer <token>" with the token held in this environment variable',
    )
    .option('--jwks-url <url>', 'require OAuth access tokens (JWT) signed with these keys (needs --issuer)')
    .option('--issuer <url>', 'the authorization server that issues the access tokens (JWT iss)')
    .option('--audience <uri>', 'the audience access tokens must name (JWT aud; default: --resource)')
    .option(
      '--resource <url>',
      'this endpoint as clients reach it, e.g. behind a reverse proxy (default: the served URL)',
    )
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

/** A verifier for one shared token; compared in constant time (hashes first, so lengths do not leak). */
function sharedToken(expected: string): (token: string) => AuthInfo | undefined {
  const wanted = digest(expected)
  return (token) =>
    timingSafeEqual(digest(token), wanted)
      ? { subject: 'bearer-token', subjectKind: 'client', scopes: [] }
      : undefined
}

/**
 * The server's `security.auth` for the flags, or undefined when none asks for auth. `served` is the URL the
 * server will listen on, the default resource.
 */
export function downstreamAuth(
  flags: DownstreamAuthFlags,
  served: string,
  env: NodeJS.ProcessEnv = process.env,
): BearerAuth | undefined {
  const { bearerTokenEnv, jwksUrl, issuer, audience } = flags
  if (bearerTokenEnv === undefined && jwksUrl === undefined && issuer === undefined) {
    if (audience !== undefined || flags.resource !== undefined)
      throw new UsageError('--audience and --resource go with --jwks-url or --bearer-token-env')
    return undefined
  }
  if ((jwksUrl === undefined) !== (issuer === undefined))
    throw new UsageError('--jwks-url and --issuer go together: the keys and the issuer they sign for')
  const resource = flags.resource ?? served
  let shared: ((token: string) => AuthInfo | undefined) | undefined
  if (bearerTokenEnv !== undefined) {
    const value = env[bearerTokenEnv]
    if (!value)
      throw new UsageError(`--bearer-token-env ${bearerTokenEnv}: that variable is not set or empty`)
    shared = sharedToken(value)
  }
  const jwt =
    jwksUrl !== undefined && issuer !== undefined
      ? { issuer, jwksUrl, audience: audience ?? resource }
      : undefined
  // RFC 9728 wants an authorization server in the metadata; a shared token alone has none but this server.
  const authorizationServers = [issuer ?? new URL(resource).origin]
  if (!shared) return bearerAuth({ resource, authorizationServers, jwt: jwt! })
  const checkJwt = jwt ? jwtVerifier(jwt) : undefined
  const verifier: TokenVerifier = (token) => {
    const known = shared(token)
    if (known) return known
    if (checkJwt) return checkJwt(token)
    throw new InvalidTokenError('unknown token')
  }
  return bearerAuth({ resource, authorizationServers, verifier })
}
