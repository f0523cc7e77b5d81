/**
 * The OAuth settings every CLI command uses for an HTTP server: the stored tokens (refreshed when they
 * expire), and the client credentials grant when TOOLWIRE_CLIENT_ID is set (for machines). A command never
 * opens a browser: when a user must authorize, it fails and says to run `toolwire login`.
 */
import type { ClientCredentials, OAuthOptions } from '../../client/index.js'
import { FileTokenStore } from './file-store.js'

export function clientCredentialsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): ClientCredentials | undefined {
  const clientId = env.TOOLWIRE_CLIENT_ID
  if (!clientId) return undefined
  return {
    clientId,
    ...(env.TOOLWIRE_CLIENT_SECRET ? { clientSecret: env.TOOLWIRE_CLIENT_SECRET } : {}),
    ...(env.TOOLWIRE_CLIENT_SCOPE ? { scope: env.TOOLWIRE_CLIENT_SCOPE } : {}),
  }
}

export function commandAuth(): OAuthOptions {
  const credentials = clientCredentialsFromEnv()
  return { store: new FileTokenStore(), ...(credentials ? { clientCredentials: credentials } : {}) }
}
