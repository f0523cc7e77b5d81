/**
 * Bearer auth for the benchmark server, from the environment (the benchmark generates the keys):
 *
 *   AUTH_HS256_SECRET=<base64url bytes>   HS256 tokens signed with this shared secret, or
 *   AUTH_RS256_PUBLIC_KEY=<SPKI PEM>      RS256 tokens signed with the matching private key;
 *   AUTH_ISSUER, AUTH_RESOURCE            the `iss` and `aud` every token must name.
 *
 * With neither key set the server has no auth.
 */
import { createPublicKey } from 'node:crypto'
import { type BearerAuth, bearerAuth } from 'toolwire'

export function benchAuth(env: NodeJS.ProcessEnv): BearerAuth | undefined {
  const secret = env.AUTH_HS256_SECRET
  const publicKey = env.AUTH_RS256_PUBLIC_KEY
  if (secret === undefined && publicKey === undefined) return undefined
  if (secret !== undefined && publicKey !== undefined)
    throw new Error('set one of AUTH_HS256_SECRET and AUTH_RS256_PUBLIC_KEY, not both')
  const issuer = env.AUTH_ISSUER
  const resource = env.AUTH_RESOURCE
  if (!issuer || !resource) throw new Error('auth needs AUTH_ISSUER and AUTH_RESOURCE')
  return bearerAuth({
    resource,
    authorizationServers: [issuer],
    jwt:
      secret !== undefined
        ? { issuer, key: new Uint8Array(Buffer.from(secret, 'base64url')), algorithms: ['HS256'] }
        : { issuer, key: createPublicKey(publicKey as string), algorithms: ['RS256'] },
  })
}
