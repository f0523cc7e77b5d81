/**
 * Finding the authorization server: the protected resource metadata (RFC 9728) and then the authorization
 * server metadata (RFC 8414 / OpenID Connect Discovery), as basic/authorization/authorization-server-discovery
 * prescribes: the WWW-Authenticate `resource_metadata` URL first, else the path-based and then the root
 * well-known URI; for the authorization server, the three (or two) well-known URIs in the listed order.
 */
import * as oauth from 'oauth4webapi'
import { AuthorizationError } from './errors.js'
import { requireSecureUrl, safeOrigin } from './safe-fetch.js'

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>

export interface ResourceMetadata {
  readonly resource: string
  readonly authorizationServers: readonly string[]
  readonly scopesSupported: readonly string[] | undefined
  /** `dpop_signing_alg_values_supported`: the resource accepts DPoP-bound tokens (RFC 9728 §2). */
  readonly dpopAlgorithms: readonly string[] | undefined
}

export async function discoverResource(
  serverUrl: URL,
  metadataUrl: string | undefined,
  fetch: Fetch,
): Promise<ResourceMetadata> {
  const candidates = metadataUrl
    ? [requireSecureUrl(metadataUrl, 'The resource_metadata URL')]
    : wellKnownResourceUrls(serverUrl)
  for (const url of candidates) {
    const response = await fetch(url.href, { headers: { accept: 'application/json' } })
    if (response.status !== 200) {
      if (metadataUrl || response.status >= 500) {
        throw new AuthorizationError(`${url.href} answered HTTP ${response.status}, not resource metadata`)
      }
      continue
    }
    return checkResource(serverUrl, url, await readJson(response, url))
  }
  throw new AuthorizationError(
    `${serverUrl.origin} publishes no protected resource metadata (RFC 9728), so its authorization server is unknown`,
  )
}

/** Path-based first, then the root (authorization-server-discovery §Protected Resource Metadata Discovery). */
function wellKnownResourceUrls(serverUrl: URL): URL[] {
  const path = serverUrl.pathname === '/' ? '' : serverUrl.pathname.replace(/\/$/, '')
  const root = new URL('/.well-known/oauth-protected-resource', serverUrl.origin)
  return path ? [new URL(`/.well-known/oauth-protected-resource${path}`, serverUrl.origin), root] : [root]
}

/**
 * The metadata must describe this server (RFC 9728 §3.3): same origin, and a resource path that is the server
 * URL's path or a parent of it. Anything else could be a server asking for tokens meant for another.
 */
function checkResource(serverUrl: URL, from: URL, body: Record<string, unknown>): ResourceMetadata {
  const { resource, authorization_servers: servers, scopes_supported: scopes } = body
  const dpop = body.dpop_signing_alg_values_supported
  if (typeof resource !== 'string') throw new AuthorizationError(`${from.href} names no resource`)
  let url: URL
  try {
    url = new URL(resource)
  } catch {
    throw new AuthorizationError(`${from.href} names an invalid resource`)
  }
  const base = url.pathname.replace(/\/$/, '')
  const covers =
    url.origin === serverUrl.origin &&
    !url.hash &&
    (serverUrl.pathname === base || serverUrl.pathname.startsWith(`${base}/`) || base === '')
  if (!covers) {
    throw new AuthorizationError(
      `The protected resource metadata is for ${safeOrigin(resource)}${url.pathname}, not for ${serverUrl.origin}${serverUrl.pathname}; refusing to authorize`,
    )
  }
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === 'string')) {
    throw new AuthorizationError(`${from.href} lists no authorization_servers`)
  }
  const scopeList = Array.isArray(scopes)
    ? scopes.filter((s): s is string => typeof s === 'string')
    : undefined
  const dpopAlgorithms = Array.isArray(dpop)
    ? dpop.filter((a): a is string => typeof a === 'string')
    : undefined
  return { resource, authorizationServers: servers as string[], scopesSupported: scopeList, dpopAlgorithms }
}

/**
 * Authorization server metadata, tried in the order of authorization-server-discovery §Authorization Server
 * Metadata Discovery. The document's `issuer` must be identical to the issuer it was looked up for.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  fetch: Fetch,
): Promise<oauth.AuthorizationServer> {
  const issuerUrl = requireSecureUrl(issuer, `The authorization server ${safeOrigin(issuer)}`)
  for (const url of wellKnownServerUrls(issuerUrl)) {
    const response = await fetch(url.href, { headers: { accept: 'application/json' } })
    if (response.status !== 200) {
      await response.body?.cancel()
      continue
    }
    const claimed = ((await response
      .clone()
      .json()
      .catch(() => undefined)) ?? {}) as { issuer?: unknown }
    if (claimed.issuer !== issuer) {
      throw new AuthorizationError(
        `The metadata at ${url.href} is for issuer ${JSON.stringify(claimed.issuer)}, not ${JSON.stringify(issuer)}; it is not used`,
      )
    }
    let metadata: oauth.AuthorizationServer
    try {
      metadata = await oauth.processDiscoveryResponse(issuerUrl, response)
    } catch (error) {
      throw new AuthorizationError(`${url.href} is not valid authorization server metadata: ${reason(error)}`)
    }
    for (const field of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const) {
      if (metadata[field] !== undefined) requireSecureUrl(metadata[field], `The ${field} of ${issuer}`)
    }
    return metadata
  }
  throw new AuthorizationError(`No authorization server metadata found for ${issuer}`)
}

function wellKnownServerUrls(issuer: URL): URL[] {
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '')
  const at = (suffix: string): URL => new URL(suffix, issuer.origin)
  if (!path) return [at('/.well-known/oauth-authorization-server'), at('/.well-known/openid-configuration')]
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ]
}

async function readJson(response: Response, from: URL): Promise<Record<string, unknown>> {
  let body: unknown
  try {
    body = await response.json()
  } catch {
    throw new AuthorizationError(`${from.href} did not answer with JSON`)
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AuthorizationError(`${from.href} did not answer with a JSON object`)
  }
  return body as Record<string, unknown>
}

export function reason(error: unknown): string {
  if (error instanceof AuthorizationError) return error.message
  if (error instanceof oauth.ResponseBodyError) {
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`
  }
  return error instanceof Error ? error.message : String(error)
}
