/**
 * Which client identity to use with an authorization server, in the order of
 * basic/authorization/client-registration: a Client ID Metadata Document URL when the server supports them,
 * else credentials registered out of band for this issuer, else dynamic client registration (RFC 7591).
 * Registrations are stored per issuer and never offered to another (§Authorization Server Binding).
 */
import * as oauth from 'oauth4webapi'
import { AuthorizationError } from './errors.js'
import { reason, type Fetch } from './discovery.js'
import { isLoopback } from './safe-fetch.js'
import type { ClientRecord, OAuthOptions, TokenStore } from './types.js'

export async function clientFor(
  as: oauth.AuthorizationServer,
  options: OAuthOptions,
  store: TokenStore,
  redirectUri: string,
  fetch: Fetch,
): Promise<ClientRecord> {
  const issuer = as.issuer
  if (options.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
    return { clientId: options.clientMetadataUrl, tokenEndpointAuthMethod: 'none', issuer }
  }
  const pre = options.preRegistered?.find((client) => client.issuer === issuer)
  if (pre) {
    return {
      clientId: pre.clientId,
      ...(pre.clientSecret === undefined ? {} : { clientSecret: pre.clientSecret }),
      tokenEndpointAuthMethod: pre.tokenEndpointAuthMethod ?? pickSecretMethod(as, pre.clientSecret),
      issuer,
    }
  }
  const stored = await store.getClient(issuer)
  if (stored && stored.issuer === issuer && (stored.redirectUris ?? []).includes(redirectUri)) return stored
  if (!as.registration_endpoint) {
    throw new AuthorizationError(
      `${issuer} supports neither Client ID Metadata Documents${options.clientMetadataUrl ? '' : ' (no clientMetadataUrl configured)'} nor dynamic client registration, and no client is pre-registered for it`,
    )
  }
  const registered = await register(as, options, redirectUri, fetch)
  await store.setClient(issuer, registered)
  return registered
}

async function register(
  as: oauth.AuthorizationServer,
  options: OAuthOptions,
  redirectUri: string,
  fetch: Fetch,
): Promise<ClientRecord> {
  const methods = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
  const method = methods.includes('none') ? 'none' : pickSecretMethod(as, 'secret')
  const grantTypes = ['authorization_code', ...(options.refreshTokens === false ? [] : ['refresh_token'])]
  const metadata = {
    client_name: options.clientName ?? 'toolwire',
    redirect_uris: [redirectUri],
    grant_types: grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: method,
    // client-registration §Application Type and Redirect URI Constraints: loopback redirects are native apps.
    application_type: isLoopback(new URL(redirectUri)) ? 'native' : 'web',
  }
  let client: Record<string, unknown>
  try {
    const response = await oauth.dynamicClientRegistrationRequest(as, metadata, httpOptions(as, fetch))
    client = await registrationResponse(response)
  } catch (error) {
    throw new AuthorizationError(`Dynamic client registration at ${as.issuer} failed: ${reason(error)}`, {
      cause: error,
    })
  }
  if (typeof client.client_id !== 'string' || client.client_id === '') {
    throw new AuthorizationError(`Dynamic client registration at ${as.issuer} returned no client_id`)
  }
  const secret = typeof client.client_secret === 'string' ? client.client_secret : undefined
  const answered = client.token_endpoint_auth_method
  return {
    clientId: client.client_id,
    ...(secret === undefined ? {} : { clientSecret: secret }),
    tokenEndpointAuthMethod: isKnownMethod(answered) ? answered : pickSecretMethod(as, secret),
    redirectUris: [redirectUri],
    issuer: as.issuer,
  }
}

/**
 * RFC 7591 §3.2.1. Read by hand rather than with oauth4webapi's stricter check, which refuses the many servers
 * that issue a secret without `client_secret_expires_at`.
 */
async function registrationResponse(response: Response): Promise<Record<string, unknown>> {
  const body: unknown = await response.json().catch(() => undefined)
  const record =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
  if (response.status !== 201 && response.status !== 200) {
    const error = typeof record.error === 'string' ? record.error : `HTTP ${response.status}`
    const description = typeof record.error_description === 'string' ? `: ${record.error_description}` : ''
    throw new AuthorizationError(`${error}${description}`)
  }
  return record
}

/** With a secret: client_secret_basic when allowed (RFC 8414's default), else client_secret_post. */
function pickSecretMethod(
  as: oauth.AuthorizationServer,
  secret: string | undefined,
): ClientRecord['tokenEndpointAuthMethod'] {
  if (secret === undefined) return 'none'
  const methods = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
  if (methods.includes('client_secret_basic')) return 'client_secret_basic'
  if (methods.includes('client_secret_post')) return 'client_secret_post'
  return 'client_secret_basic'
}

function isKnownMethod(value: unknown): value is ClientRecord['tokenEndpointAuthMethod'] {
  return (
    value === 'none' ||
    value === 'client_secret_basic' ||
    value === 'client_secret_post' ||
    value === 'private_key_jwt'
  )
}

/** oauth4webapi options: our guarded fetch, and plain http only where safe-fetch allows it (loopback). */
export function httpOptions(
  as: oauth.AuthorizationServer,
  fetch: Fetch,
): { [oauth.customFetch]: Fetch; [oauth.allowInsecureRequests]: boolean } {
  return {
    [oauth.customFetch]: fetch,
    [oauth.allowInsecureRequests]: new URL(as.issuer).protocol === 'http:',
  }
}
