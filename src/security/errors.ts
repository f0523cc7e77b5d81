/**
 * `WWW-Authenticate` challenges for the security layer's errors; the errors themselves (their codes, statuses
 * and headers) are in the one table, `wire/errors.ts`.
 */

/** A quoted-string for `WWW-Authenticate` parameters (RFC 9110 §5.6.4). */
export const quoted = (value: string): string => `"${value.replace(/["\\]/g, '\\$&')}"`

/** Builds a `Bearer` challenge from its parameters, skipping absent ones. */
export function bearerChallenge(params: Record<string, string | undefined>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${quoted(value)}`)
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`
}

/** The `insufficient_scope` challenge: names every scope the operation needs, for step-up authorization. */
export const scopeChallenge = (
  scopes: readonly string[],
  resourceMetadata: string,
  description: string,
): string =>
  bearerChallenge({
    error: 'insufficient_scope',
    scope: scopes.join(' '),
    resource_metadata: resourceMetadata,
    error_description: description,
  })
