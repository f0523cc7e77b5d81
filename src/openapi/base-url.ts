/**
 * Where calls go when `baseUrl` is not given: the document's server (OpenAPI 3 `servers`, Swagger 2.0
 * `schemes`, `host` and `basePath`), or an operation's own `servers`, resolved against the document's URL.
 */
import { isNode, type LoadedDocument } from './document.js'
import type { Operation } from './operations.js'

/** The document's server URL, if it names one (or, for a remote 2.0 document, where it came from). */
export function documentBaseUrl(loaded: LoadedDocument): string | undefined {
  const { document } = loaded
  if (loaded.version === '2.0') {
    if (typeof document.host !== 'string')
      return loaded.url ? new URL(String(document.basePath ?? '/'), loaded.url).href : undefined
    const schemes = Array.isArray(document.schemes) ? document.schemes : []
    const scheme = schemes.includes('https') ? 'https' : typeof schemes[0] === 'string' ? schemes[0] : 'https'
    return `${scheme}://${document.host}${typeof document.basePath === 'string' ? document.basePath : ''}`
  }
  return serverUrl(document.servers, loaded.url)
}

/** An operation's own server URL (its `servers`, then its path item's), if it names one. */
export function operationBaseUrl(loaded: LoadedDocument, operation: Operation): string | undefined {
  return serverUrl(operation.node.servers, loaded.url) ?? serverUrl(operation.pathItem.servers, loaded.url)
}

/** The first server's URL, its variables at their defaults, resolved against where the document came from. */
function serverUrl(servers: unknown, documentUrl: URL | undefined): string | undefined {
  if (!Array.isArray(servers) || !isNode(servers[0]) || typeof servers[0].url !== 'string') return undefined
  const server = servers[0]
  const variables = isNode(server.variables) ? server.variables : {}
  const url = (server.url as string).replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name]
    return isNode(variable) && variable.default !== undefined ? String(variable.default) : whole
  })
  try {
    return new URL(url, documentUrl).href
  } catch {
    return undefined
  }
}
