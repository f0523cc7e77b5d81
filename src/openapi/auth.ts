/**
 * How calls to the API authenticate. Credentials go only to the origin (scheme, host, port) of the server URL
 * the tool was built on: a redirect elsewhere is followed without them (call.ts), and no path key or
 * argument can move the host (url.ts).
 */
import type { ToolContext } from '../features/tools/define.js'

/**
 * What the OAuth client (`OAuthProvider` from `toolwire/client`) offers: it adds its token to requests for
 * its resource's origin and answers 401 by authorizing (client credentials, for a machine client).
 */
export interface OAuthFetcher {
  fetch(request: Request, next: (request: Request) => Promise<Response>): Promise<Response>
}

/** What an auth function may change on one request to the API. */
export interface OutgoingRequest {
  readonly method: string
  /** Add query parameters here (an API key in the query). */
  readonly url: URL
  readonly headers: Headers
  /** The MCP call this request serves: `context.auth` is who called the tool. */
  readonly context: ToolContext
}

/**
 * Credentials for the API: a bearer token (a string, or a function for one that changes), an API key in a
 * header, the query or a cookie, HTTP basic, toolwire's OAuth client, or a function that sets headers on
 * each request.
 *
 * @example
 * ```ts
 * const bearer: OpenAPIAuth = { type: 'bearer', token: () => process.env.API_TOKEN ?? '' }
 * const key: OpenAPIAuth = { type: 'apiKey', in: 'header', name: 'X-API-Key', value: 'k-123' }
 * const perCall: OpenAPIAuth = ({ headers, context }) => headers.set('X-User', context.auth?.subject ?? 'anonymous')
 * ```
 */
export type OpenAPIAuth =
  | { readonly type: 'bearer'; readonly token: string | (() => string | Promise<string>) }
  | {
      readonly type: 'apiKey'
      readonly in: 'header' | 'query' | 'cookie'
      readonly name: string
      readonly value: string
    }
  | { readonly type: 'basic'; readonly username: string; readonly password: string }
  | { readonly type: 'oauth'; readonly provider: OAuthFetcher }
  | ((request: OutgoingRequest) => void | Promise<void>)

/** Adds the credentials to a request for the API's origin (not for OAuth: its provider adds its own). */
export async function applyAuth(auth: OpenAPIAuth | undefined, request: OutgoingRequest): Promise<void> {
  if (auth === undefined) return
  if (typeof auth === 'function') return auth(request)
  switch (auth.type) {
    case 'bearer': {
      const token = typeof auth.token === 'function' ? await auth.token() : auth.token
      request.headers.set('authorization', `Bearer ${token}`)
      return
    }
    case 'basic': {
      const pair = new TextEncoder().encode(`${auth.username}:${auth.password}`)
      request.headers.set('authorization', `Basic ${btoa(String.fromCharCode(...pair))}`)
      return
    }
    case 'apiKey':
      if (auth.in === 'header') request.headers.set(auth.name, auth.value)
      else if (auth.in === 'query') request.url.searchParams.set(auth.name, auth.value)
      else {
        const cookie = `${auth.name}=${auth.value}`
        const existing = request.headers.get('cookie')
        request.headers.set('cookie', existing ? `${existing}; ${cookie}` : cookie)
      }
      return
    case 'oauth':
      return
  }
}
