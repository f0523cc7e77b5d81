/**
 * The server's Server Card (extension io.modelcontextprotocol/server-card, SEP-2127): identity, endpoint and
 * protocol versions, made from the server definition so it always says what `server/discover` says
 * (discovery §Consistency with Runtime Behavior). It lists no tools, prompts or resources (the card
 * "intentionally omits primitive listings"), so a card served without authentication reveals nothing a
 * caller would have to be authorized to list. The HTTP transports serve it at `<endpoint>/server-card`
 * (discovery §Hosted Server Card Location), with the CORS and caching headers of discovery §CORS Requirements
 * and §Caching.
 */
import type { ServerCardSource } from '../protocol/handler.js'
import type { SchemaCompiler } from '../schema/json-schema.js'
import {
  SERVER_CARD_MEDIA_TYPE,
  SERVER_CARD_SCHEMA,
  SERVER_CARD_SCHEMA_URL,
  type ServerCard,
  type ServerCardHeader,
  type ServerCardRepository,
} from '../wire/server-card.js'
import type { Implementation, JsonObject } from '../wire/types.js'

/** What `defineServer({ serverCard })` takes; identity comes from the server's own name, version and description. */
export interface ServerCardOptions {
  /**
   * The card's name, in reverse-DNS form with one slash (`com.example/notes`). Default: the server's name,
   * which must then have that form.
   */
  name?: string
  /** 1–100 characters. Default: the server's description, which must then be given. */
  description?: string
  /**
   * The public URL of the Streamable HTTP endpoint (`https://mcp.example.com/mcp`). Default: the URL the card
   * was requested at, minus `/server-card` (the Host header is checked like on the endpoint itself).
   */
  url?: string
  /** Headers a client must or may send, e.g. `Authorization` (never a value that is a secret). */
  headers?: ServerCardHeader[]
  repository?: ServerCardRepository
  /** Vendor data under reverse-DNS keys; never capabilities (SEP-2127 §Specification). */
  _meta?: JsonObject
  /** `Cache-Control: public, max-age` in seconds (default 3600, discovery §Caching). */
  maxAgeSeconds?: number
}

// discovery §CORS Requirements: cards are public and read-only, so any origin may read them.
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
}

/** FNV-1a, twice with different seeds: an opaque validator, stable for the same bytes (discovery §Caching). */
function entityTag(text: string): string {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ text.length
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    a = Math.imul(a ^ code, 0x01000193) >>> 0
    b = Math.imul(b ^ code, 0x5bd1e995) >>> 0
  }
  return `"${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}"`
}

const matches = (ifNoneMatch: string | undefined, tag: string): boolean =>
  ifNoneMatch !== undefined &&
  ifNoneMatch.split(',').some((candidate) => {
    const value = candidate.trim()
    return value === '*' || value === tag || value === `W/${tag}`
  })

/** At most this many cards (one per requested endpoint URL) are kept serialized. */
const MAX_CACHED_CARDS = 16

/**
 * Checks the options against the card schema now, so a server that would publish an invalid card fails when
 * it is defined; returns what the transports serve.
 */
export function compileServerCard(
  info: Implementation,
  options: ServerCardOptions,
  supportedVersions: readonly string[],
  compiler: SchemaCompiler,
): ServerCardSource {
  const maxAge = options.maxAgeSeconds ?? 3600
  if (!Number.isSafeInteger(maxAge) || maxAge < 0)
    throw new TypeError('serverCard.maxAgeSeconds must be an integer >= 0')
  const build = (url: string): ServerCard => {
    const card: ServerCard = {
      $schema: SERVER_CARD_SCHEMA_URL,
      name: options.name ?? info.name,
      version: info.version,
      description: options.description ?? info.description ?? '',
    }
    if (info.title !== undefined) card.title = info.title
    if (info.websiteUrl !== undefined) card.websiteUrl = info.websiteUrl
    if (options.repository) card.repository = options.repository
    if (info.icons !== undefined) card.icons = info.icons
    card.remotes = [
      {
        type: 'streamable-http',
        url,
        ...(options.headers && { headers: options.headers }),
        supportedProtocolVersions: [...supportedVersions],
      },
    ]
    if (options._meta) card._meta = options._meta
    return card
  }
  const validator = compiler.compile(SERVER_CARD_SCHEMA, 'the server card schema')
  const outcome = validator.validate(build(options.url ?? 'https://example.com/mcp'))
  if (!outcome.ok) throw new TypeError(`defineServer: serverCard is invalid: ${outcome.issues.join('; ')}`)

  const cached = new Map<string, { body: string; tag: string }>()
  const serialized = (url: string): { body: string; tag: string } => {
    const known = cached.get(url)
    if (known) return known
    const body = JSON.stringify(build(url))
    const entry = { body, tag: entityTag(body) }
    if (cached.size < MAX_CACHED_CARDS) cached.set(url, entry)
    return entry
  }
  return {
    document(method, endpointUrl, ifNoneMatch) {
      if (method === 'OPTIONS') return { status: 204, headers: { ...CORS_HEADERS }, body: '' }
      if (method !== 'GET' && method !== 'HEAD')
        return { status: 405, headers: { ...CORS_HEADERS, allow: 'GET, HEAD, OPTIONS' }, body: '' }
      const { body, tag } = serialized(options.url ?? endpointUrl)
      const headers = {
        ...CORS_HEADERS,
        'cache-control': `public, max-age=${maxAge}`,
        etag: tag,
        vary: 'Host',
      }
      if (matches(ifNoneMatch, tag)) return { status: 304, headers, body: '' }
      return { status: 200, headers: { ...headers, 'content-type': SERVER_CARD_MEDIA_TYPE }, body }
    },
  }
}
