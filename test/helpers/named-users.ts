/**
 * Bearer auth for tests with several principals: the token is the user's name, and only the names given
 * are accepted (anything else is an invalid token).
 */
import { bearerAuth, type BearerAuth, InvalidTokenError } from '../../src/index.js'

export function namedUsersAuth(...names: string[]): BearerAuth {
  const known = new Set(names)
  return bearerAuth({
    resource: 'http://127.0.0.1/mcp',
    authorizationServers: ['https://issuer.invalid'],
    verifier: (token) => {
      if (!known.has(token)) throw new InvalidTokenError('unknown token')
      return { subject: token, scopes: [], token }
    },
  })
}
