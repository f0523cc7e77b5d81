/** The protocol errors the security layer sends, with their HTTP status and headers. */
import { ErrorCode, McpError } from '../wire/errors.js'

/** A quoted-string for `WWW-Authenticate` parameters (RFC 9110 §5.6.4). */
export const quoted = (value: string): string => `"${value.replace(/["\\]/g, '\\$&')}"`

/** Builds a `Bearer` challenge from its parameters, skipping absent ones. */
export function bearerChallenge(params: Record<string, string | undefined>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${quoted(value)}`)
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`
}

/** 401: no token, or a token that failed verification (OAuth 2.1 §5.3, authorization §Error Handling). */
export function unauthorized(challenge: string, description: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, `Unauthorized: ${description}`, undefined, 401, {
    'www-authenticate': challenge,
  })
}

/** 403 `insufficient_scope`: names every scope the operation needs, for step-up authorization. */
export function insufficientScope(
  scopes: readonly string[],
  resourceMetadata: string,
  description: string,
): McpError {
  const challenge = bearerChallenge({
    error: 'insufficient_scope',
    scope: scopes.join(' '),
    resource_metadata: resourceMetadata,
    error_description: description,
  })
  return new McpError(
    ErrorCode.InvalidRequest,
    `Forbidden: ${description}`,
    { requiredScopes: [...scopes] },
    403,
    { 'www-authenticate': challenge },
  )
}

/** 429 with `Retry-After` in whole seconds (request-level limits). */
export function tooManyRequests(retryAfterMs: number, what: string): McpError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
  return new McpError(
    ErrorCode.InvalidRequest,
    `Too many requests: ${what}; retry in ${seconds} s`,
    { retryAfterMs: Math.ceil(retryAfterMs) },
    429,
    { 'retry-after': String(seconds) },
  )
}
