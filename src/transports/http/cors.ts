/**
 * CORS for browser clients on other origins (Fetch standard §CORS protocol). Only origins listed by the
 * operator get CORS headers, each echoed exactly and never `*`, and no credentials mode: a browser page
 * sends its token in `Authorization`, which needs none. Listing an origin is also what lets it past the
 * Origin check (streamable-http §Security Warning), so the two lists cannot disagree.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Request headers an MCP client sends (streamable-http, standard headers) besides the CORS-safelisted ones. */
const ALLOWED_HEADERS = new Set([
  'content-type',
  'authorization',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
])
/** `Mcp-Param-<name>`: one header per mirrored parameter, so matched by prefix. */
const PARAM_PREFIX = 'mcp-param-'
const ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS'
/** Response headers a page may read: the session id it must send back. */
const EXPOSED_HEADERS = 'Mcp-Session-Id'
/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600'

/**
 * Adds CORS headers for a listed origin and answers its preflight. Returns true when the request was a
 * preflight it answered; an unlisted origin gets no CORS headers (its preflight falls through and is refused).
 */
export function applyCors(origins: ReadonlySet<string>, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin
  res.setHeader('vary', 'Origin')
  if (origin === undefined || !origins.has(origin)) return false
  res.setHeader('access-control-allow-origin', origin)
  res.setHeader('access-control-expose-headers', EXPOSED_HEADERS)
  if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false
  const asked = (req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')
  // Only names MCP uses are granted; the browser refuses the request if it asked for another.
  const granted = asked.filter((name) => ALLOWED_HEADERS.has(name) || name.startsWith(PARAM_PREFIX))
  res
    .writeHead(204, {
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': [...new Set([...ALLOWED_HEADERS, ...granted])].join(', '),
      'access-control-max-age': PREFLIGHT_MAX_AGE,
    })
    .end()
  return true
}
