/**
 * The three ways to a token: the authorization code grant with PKCE S256 and the `resource` parameter
 * (basic/authorization §Authorization Flow Steps, §Resource Parameter Implementation), the client credentials
 * grant, and the refresh token grant. The authorization response is checked against the recorded issuer
 * (RFC 9207) before the code goes anywhere (§Authorization Response Validation).
 */
import * as oauth from 'oauth4webapi'
import { importPKCS8 } from 'jose'
import { AuthorizationError } from './errors.js'
import { reason, type Fetch } from './discovery.js'
import { type DpopKey, withNonceRetry } from './dpop.js'
import { httpOptions } from './registration.js'
import type { ClientCredentials, ClientRecord, OAuthOptions, TokenRecord } from './types.js'

export interface GrantContext {
  readonly as: oauth.AuthorizationServer
  readonly resource: string
  readonly scope: string | undefined
  readonly fetch: Fetch
  /** Present when tokens are to be DPoP-bound. */
  readonly dpop?: DpopKey | undefined
}

/** oauth4webapi request options: the guarded fetch, and the DPoP handle when binding. */
function requestOptions(context: GrantContext): ReturnType<typeof httpOptions> & { DPoP?: oauth.DPoPHandle } {
  return {
    ...httpOptions(context.as, context.fetch),
    ...(context.dpop ? { DPoP: context.dpop.handle() } : {}),
  }
}

export async function authorizationCodeGrant(
  context: GrantContext,
  client: ClientRecord,
  options: OAuthOptions,
  redirectUri: string,
  signal: AbortSignal,
): Promise<TokenRecord> {
  const { as } = context
  if (!options.authorize) {
    throw new AuthorizationError(
      `${context.resource} needs authorization, but no authorize callback is configured`,
    )
  }
  if (!as.authorization_endpoint) throw new AuthorizationError(`${as.issuer} has no authorization_endpoint`)
  // security-considerations §Authorization Code Protection: no advertised S256, no authorization.
  if (!as.code_challenge_methods_supported?.includes('S256')) {
    throw new AuthorizationError(`${as.issuer} does not advertise PKCE S256 support; refusing to authorize`)
  }
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(as.authorization_endpoint)
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    resource: context.resource,
  }
  if (context.scope) params.scope = context.scope
  // OpenID Connect Core §11: an OpenID provider honours offline_access only with prompt=consent.
  if (context.scope?.split(' ').includes('offline_access')) params.prompt = 'consent'
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)

  const callback = new URL(await options.authorize(url, signal))
  const oauthClient = toOAuthClient(client)
  let parameters: URLSearchParams
  try {
    // Checks `iss` against the issuer recorded in `as` (RFC 9207 §2.4) before `state` and `error`.
    parameters = oauth.validateAuthResponse(as, oauthClient, callback, state)
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      throw new AuthorizationError(`Authorization was refused: ${error.error}`, { oauthError: error.error })
    }
    throw new AuthorizationError(`The authorization response was rejected: ${reason(error)}`)
  }
  try {
    const auth = await clientAuth(client)
    const tokens = await withNonceRetry(async () => {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        oauthClient,
        auth,
        parameters,
        redirectUri,
        verifier,
        { ...requestOptions(context), additionalParameters: { resource: context.resource } },
      )
      return oauth.processAuthorizationCodeResponse(as, oauthClient, response)
    })
    return toRecord(tokens, context, undefined)
  } catch (error) {
    throw tokenError(as, error)
  }
}

export async function clientCredentialsGrant(
  context: GrantContext,
  credentials: ClientCredentials,
): Promise<TokenRecord> {
  const { as } = context
  const client = credentialsClient(as, credentials)
  const parameters: Record<string, string> = { resource: context.resource }
  if (context.scope) parameters.scope = context.scope
  try {
    const auth = await clientAuth(client, credentials)
    const tokens = await withNonceRetry(async () => {
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        toOAuthClient(client),
        auth,
        parameters,
        requestOptions(context),
      )
      return oauth.processClientCredentialsResponse(as, toOAuthClient(client), response)
    })
    return toRecord(tokens, context, undefined)
  } catch (error) {
    throw tokenError(as, error)
  }
}

export async function refreshGrant(
  context: GrantContext,
  client: ClientRecord,
  previous: TokenRecord & { refreshToken: string },
  credentials?: ClientCredentials,
): Promise<TokenRecord> {
  const { as } = context
  try {
    const auth = await clientAuth(client, credentials)
    const tokens = await withNonceRetry(async () => {
      const response = await oauth.refreshTokenGrantRequest(
        as,
        toOAuthClient(client),
        auth,
        previous.refreshToken,
        { ...requestOptions(context), additionalParameters: { resource: context.resource } },
      )
      return oauth.processRefreshTokenResponse(as, toOAuthClient(client), response)
    })
    return toRecord(tokens, context, previous)
  } catch (error) {
    throw tokenError(as, error)
  }
}

/** The ClientRecord a machine client's credentials amount to at this authorization server. */
export function credentialsClient(
  as: oauth.AuthorizationServer,
  credentials: ClientCredentials,
): ClientRecord {
  if (credentials.issuer !== undefined && credentials.issuer !== as.issuer) {
    throw new AuthorizationError(
      `The client credentials are for ${credentials.issuer}, but the server now uses ${as.issuer}; they are not sent there`,
    )
  }
  const methods = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
  const method: ClientRecord['tokenEndpointAuthMethod'] = credentials.privateKey
    ? 'private_key_jwt'
    : credentials.clientSecret === undefined
      ? 'none'
      : methods.includes('client_secret_basic')
        ? 'client_secret_basic'
        : 'client_secret_post'
  return {
    clientId: credentials.clientId,
    ...(credentials.clientSecret === undefined ? {} : { clientSecret: credentials.clientSecret }),
    tokenEndpointAuthMethod: method,
    issuer: as.issuer,
  }
}

async function clientAuth(client: ClientRecord, credentials?: ClientCredentials): Promise<oauth.ClientAuth> {
  switch (client.tokenEndpointAuthMethod) {
    case 'client_secret_basic':
      return secretBasic(client.clientSecret ?? '')
    case 'client_secret_post':
      return oauth.ClientSecretPost(client.clientSecret ?? '')
    case 'private_key_jwt': {
      const key = credentials?.privateKey
      if (key === undefined) throw new AuthorizationError('private_key_jwt needs a private key')
      const algorithm = credentials?.algorithm ?? 'ES256'
      const cryptoKey = typeof key === 'string' ? await importPKCS8(key, algorithm) : key
      return oauth.PrivateKeyJwt(cryptoKey)
    }
    default:
      return oauth.None()
  }
}

/**
 * client_secret_basic (RFC 6749 §2.3.1) with the id and secret percent-encoded as URI components.
 * oauth4webapi also escapes unreserved marks such as "-", which many servers do not decode back.
 */
function secretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    const credentials = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`
    headers.set('authorization', `Basic ${btoa(credentials)}`)
  }
}

function toOAuthClient(client: ClientRecord): oauth.Client {
  return { client_id: client.clientId, token_endpoint_auth_method: client.tokenEndpointAuthMethod }
}

function toRecord(
  tokens: oauth.TokenEndpointResponse,
  context: GrantContext,
  previous: TokenRecord | undefined,
): TokenRecord {
  const refreshToken = tokens.refresh_token ?? previous?.refreshToken
  const scope = tokens.scope ?? context.scope ?? previous?.scope
  const bound = context.dpop !== undefined && tokens.token_type.toLowerCase() === 'dpop'
  return {
    ...(bound ? { dpopKey: context.dpop?.privateJwk as Record<string, unknown> } : {}),
    accessToken: tokens.access_token,
    tokenType: tokens.token_type,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(tokens.expires_in === undefined ? {} : { expiresAt: Date.now() + tokens.expires_in * 1000 }),
    ...(scope === undefined ? {} : { scope }),
    issuer: context.as.issuer,
    resource: context.resource,
  }
}

function tokenError(as: oauth.AuthorizationServer, error: unknown): AuthorizationError {
  if (error instanceof AuthorizationError) return error
  const code = error instanceof oauth.ResponseBodyError ? error.error : undefined
  return new AuthorizationError(`The token request to ${as.issuer} failed: ${reason(error)}`, {
    ...(code === undefined ? {} : { oauthError: code }),
  })
}
