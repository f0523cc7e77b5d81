/**
 * A real OAuth 2.1 authorization server for tests: oidc-provider on 127.0.0.1 (free port), with dynamic client
 * registration, PKCE, resource indicators (RFC 8707) minting JWT access tokens for the resource, refresh
 * tokens, and the client credentials grant. The only shortcut is the user: its login and consent page
 * approves at once, for the account "alice", exactly the scopes the request asks for.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair } from 'jose'
import Provider from 'oidc-provider'

export interface TestAuthorizationServer {
  readonly issuer: string
  readonly provider: Provider
  /** How many authorization requests reached the login/consent page. */
  readonly interactions: () => number
  close(): Promise<void>
}

/** A machine client registered for the client-credentials grant. */
export const ROBOT_CLIENT = {
  client_id: 'robot',
  client_secret: 'robot-secret-value',
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
}

export async function startAuthorizationServer(options: {
  resourceScopes: string
  accessTokenTTL?: number
  clients?: Array<Record<string, unknown>>
}): Promise<TestAuthorizationServer> {
  const http: Server = createServer()
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  const { privateKey } = await generateKeyPair('ES256', { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'test' }
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: (options.clients ?? []) as never,
    scopes: ['openid', 'offline_access'],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: options.resourceScopes,
          audience: resource,
          accessTokenTTL: options.accessTokenTTL ?? 3600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key'] },
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
  })
  let interactions = 0
  const callback = provider.callback()
  http.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res)
    interactions++
    void approve(provider, req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error))
    })
  })
  return {
    issuer,
    provider,
    interactions: () => interactions,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}

/** The user "alice" logs in and consents to exactly what is asked. */
async function approve(
  provider: Provider,
  req: Parameters<Provider['interactionDetails']>[0],
  res: Parameters<Provider['interactionDetails']>[1],
): Promise<void> {
  const details = await provider.interactionDetails(req, res)
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: 'alice' } },
      { mergeWithLastSubmission: false },
    )
    return
  }
  const grant = details.grantId
    ? ((await provider.Grant.find(details.grantId)) as InstanceType<Provider['Grant']>)
    : new provider.Grant({
        accountId: details.session?.accountId ?? 'alice',
        clientId: String(details.params.client_id),
      })
  const missing = details.prompt.details as {
    missingOIDCScope?: string[]
    missingResourceScopes?: Record<string, string[]>
  }
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '))
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '))
  }
  const grantId = await grant.save()
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true })
}

/**
 * Plays the browser: follows the authorization server's redirects (keeping its cookies) until the one that
 * leaves for the client's redirect URI, which it returns (or, when `deliver`, also requests).
 */
export async function playBrowser(
  authorizationUrl: URL | string,
  redirectUri: string,
  deliver = false,
): Promise<URL> {
  const cookies = new Map<string, string>()
  let url = new URL(authorizationUrl)
  for (let hop = 0; hop < 20; hop++) {
    if (url.href.startsWith(redirectUri)) {
      if (deliver) await (await fetch(url)).text()
      return url
    }
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const eq = pair.indexOf('=')
      if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
    }
    const location = response.headers.get('location')
    if (!location)
      throw new Error(`the authorization server stopped at HTTP ${response.status}: ${await response.text()}`)
    await response.body?.cancel()
    url = new URL(location, url)
  }
  throw new Error('too many redirects')
}
