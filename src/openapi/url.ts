/**
 * The request URL, built from parts and never as text. OpenAPI 3.1 §Paths Object: a path key "MUST begin
 * with a forward slash" and is "appended (no relative URL resolution)" to the server URL. Joined as text, a
 * key such as `.attacker.example/collect`, or `{sub}/x` with the caller's `sub`, would extend the server's
 * host name and send the call, credentials and all, to another host. So the server URL's origin is fixed,
 * its path kept as a prefix, and the key's segments appended one by one, each parameter value inside one
 * segment (request.ts percent-encodes it whole, so it can hold no `/`, `?`, `#` or `@` of its own).
 */
import { ToolError } from '../features/tools/errors.js'
import { OperationProblem } from './schema.js'

/** `.` and `..`, also percent-encoded: WHATWG URL parsers read `%2e` as a dot in a path segment. */
const isDotSegment = (segment: string): boolean => /^(?:\.|%2e){1,2}$/i.test(segment)

/**
 * A path key's path, and the query a few documents write into the key (`/search?type=a`). A `#` ends it:
 * some documents tell two operations on one path apart with a fragment (`/cookies#form`), and a fragment is
 * never sent (RFC 9110 §7.1).
 */
function splitKey(key: string): { readonly path: string; readonly query: string } {
  const end = key.search(/[?#]/)
  if (end < 0) return { path: key, query: '' }
  const rest = key.slice(end)
  return { path: key.slice(0, end), query: rest.startsWith('?') ? (rest.slice(1).split('#')[0] ?? '') : '' }
}

/**
 * Why a document's path key cannot be a path under the server URL, or undefined when it can: it must start
 * with `/`, and neither name a host (`//host`), nor hold a `\` (read as `/` in http(s) URLs), nor a `.` or
 * `..` segment (RFC 3986 §5.2.4: it would climb out of the server URL's path).
 */
export function pathKeyProblem(key: string): string | undefined {
  const { path } = splitKey(key)
  const quoted = JSON.stringify(key)
  if (!path.startsWith('/'))
    return `path ${quoted} is not an absolute path: a path must start with "/" (OpenAPI §Paths Object); joined to the server URL it could change the host`
  if (path.startsWith('//')) return `path ${quoted} starts with "//", which names a host, not a path`
  if (path.includes('\\')) return `path ${quoted} holds a "\\", which URL parsers read as "/"`
  const dots = path.split('/').find(isDotSegment)
  if (dots !== undefined)
    return `path ${quoted} has a "${dots}" segment, which would leave the server URL's path`
  return undefined
}

/** The server URL, refused unless it is an http(s) URL: calls go there, with the credentials. */
export function httpUrl(text: string): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new OperationProblem(`server URL ${JSON.stringify(text)} is not a URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new OperationProblem(`server URL ${JSON.stringify(text)} is not an http(s) URL`)
  return url
}

/** Two http(s) URLs with one origin: scheme, host and port (RFC 6454 §4); an opaque origin matches none. */
export function sameOrigin(a: URL, b: URL): boolean {
  return (
    (a.protocol === 'https:' || a.protocol === 'http:') &&
    a.protocol === b.protocol &&
    a.hostname === b.hostname &&
    a.port === b.port
  )
}

/** Percent-encodes what a path segment may not hold as it is (RFC 3986 §3.3 `pchar`), `%XX` left alone. */
const encodeLiteral = (text: string): string =>
  text.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@%]/gu, (char) =>
    // A lone surrogate has no UTF-8 form: U+FFFD, as the URL parser would write it.
    /^[\uD800-\uDFFF]$/.test(char) ? '%EF%BF%BD' : encodeURIComponent(char),
  )

/**
 * `base` with the path key appended: each `{name}` replaced by `values.get(name)` (already percent-encoded,
 * one segment's worth; one without a value stays as encoded text). Throws a ToolError for a segment that
 * ends up `.` or `..`.
 */
export function joinPath(base: URL, key: string, values: ReadonlyMap<string, string>): URL {
  const { path, query } = splitKey(key)
  const segments = path
    .slice(1)
    .split('/')
    .map((segment) => {
      const built = segment
        .split(/(\{[^{}]+\})/)
        .map((part) => {
          const value = /^\{([^{}]+)\}$/.exec(part)?.[1]
          return (value === undefined ? undefined : values.get(value)) ?? encodeLiteral(part)
        })
        .join('')
      if (isDotSegment(built))
        throw new ToolError(`these arguments make the path segment "${built}", which is not sent`)
      return built
    })
  const url = new URL(base.href)
  url.hash = ''
  // The pathname setter parses only a path: whatever it is given, the scheme, host and port stay.
  url.pathname = `${base.pathname.replace(/\/+$/, '')}/${segments.join('/')}`
  if (query !== '') url.search = url.search ? `${url.search.slice(1)}&${query}` : query
  if (!sameOrigin(url, base)) throw new ToolError(`the request URL left ${base.origin}`) // never, by the above
  return url
}
