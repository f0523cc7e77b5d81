/**
 * Fetching and checking a Server Card (extension io.modelcontextprotocol/server-card, SEP-2127): a GET with
 * `Accept: application/mcp-server-card+json` (discovery §Hosted Server Card Location), the body bounded, the
 * document validated against the card's JSON Schema. A card is advisory: once connected, prefer what
 * `server/discover` says (discovery §Consistency with Runtime Behavior).
 */
import { AJV_MODULES } from '../schema/ajv-static.js'
import { SchemaCompiler, type CompiledSchema } from '../schema/json-schema.js'
import { readStreamCapped } from '../wire/read-capped.js'
import {
  SERVER_CARD_MEDIA_TYPE,
  SERVER_CARD_SCHEMA,
  SERVER_CARD_SUFFIX,
  type ServerCard,
} from '../wire/server-card.js'
import { ToolwireError, type ToolwireErrorCode } from '../wire/toolwire-error.js'

export { SERVER_CARD_MEDIA_TYPE, SERVER_CARD_SUFFIX }
export type { ServerCard }

/**
 * A Server Card could not be fetched, or is not a valid card: `issues` says what the schema found.
 *
 * @example
 * ```ts
 * try {
 *   await fetchServerCard('https://mcp.example.com/mcp')
 * } catch (error) {
 *   if (error instanceof ServerCardError) console.error(error.errorCode, error.issues) // ERR_SERVER_CARD
 * }
 * ```
 */
export class ServerCardError extends ToolwireError {
  override readonly name = 'ServerCardError'
  readonly issues: readonly string[]
  constructor(message: string, issues: readonly string[] = []) {
    super(message)
    this.issues = issues
  }
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_SERVER_CARD'
  }
}

export interface FetchServerCardOptions {
  /** `fetch` to use (default: the global one). */
  readonly fetch?: (input: string, init?: RequestInit) => Promise<Response>
  readonly signal?: AbortSignal
  /** Largest card accepted, in bytes (default 64 KiB). */
  readonly maxBytes?: number
}

/**
 * The default bound on a fetched card's size (64 KiB).
 *
 * @example
 * ```ts
 * const card = await fetchServerCard(url, { maxBytes: 4 * SERVER_CARD_MAX_BYTES })
 * ```
 */
export const SERVER_CARD_MAX_BYTES = 64 * 1024

let validator: CompiledSchema | undefined

/**
 * Checks a value against the Server Card schema; throws `ServerCardError` with the schema's findings.
 *
 * @example
 * ```ts
 * const card = checkServerCard(JSON.parse(text))
 * console.log(card.name, card.remotes?.[0]?.url)
 * ```
 */
export function checkServerCard(value: unknown): ServerCard {
  validator ??= new SchemaCompiler({ ajv: AJV_MODULES }).compile(SERVER_CARD_SCHEMA, 'the server card schema')
  const outcome = validator.validate(value)
  if (!outcome.ok)
    throw new ServerCardError(`Invalid server card: ${outcome.issues.join('; ')}`, outcome.issues)
  return value as ServerCard
}

/**
 * The card's URL for a server URL: a URL already ending in `/server-card` is kept, otherwise `/server-card` is
 * appended to the Streamable HTTP endpoint's URL (discovery §Hosted Server Card Location).
 *
 * @example
 * ```ts
 * serverCardUrl('https://mcp.example.com/mcp') // 'https://mcp.example.com/mcp/server-card'
 * ```
 */
export function serverCardUrl(url: string): string {
  const parsed = new URL(url)
  parsed.hash = ''
  if (!parsed.pathname.endsWith(SERVER_CARD_SUFFIX))
    parsed.pathname = `${parsed.pathname.replace(/\/$/, '')}${SERVER_CARD_SUFFIX}`
  return parsed.href
}

/**
 * Fetches and checks a server's card, from its endpoint URL or the card's own URL.
 *
 * @example
 * ```ts
 * const card = await fetchServerCard('https://mcp.example.com/mcp')
 * console.log(card.name, card.version, card.remotes?.[0]?.supportedProtocolVersions)
 * ```
 */
export async function fetchServerCard(
  url: string,
  options: FetchServerCardOptions = {},
): Promise<ServerCard> {
  const target = serverCardUrl(url)
  const protocol = new URL(target).protocol
  if (protocol !== 'https:' && protocol !== 'http:') throw new ServerCardError(`${target} is not an HTTP URL`)
  const doFetch = options.fetch ?? fetch
  let response: Response
  try {
    response = await doFetch(target, {
      headers: { accept: `${SERVER_CARD_MEDIA_TYPE}, application/json;q=0.9` },
      redirect: 'error',
      ...(options.signal && { signal: options.signal }),
    })
  } catch (error) {
    throw new ServerCardError(`fetching ${target} failed: ${String(error)}`)
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined)
    throw new ServerCardError(`${target} answered HTTP ${response.status}, not a server card`)
  }
  const max = options.maxBytes ?? SERVER_CARD_MAX_BYTES
  const bytes = await readStreamCapped(response.body, max)
  if (!bytes) throw new ServerCardError(`${target}: the card is larger than ${max} bytes`)
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    throw new ServerCardError(`${target}: the body is not JSON`)
  }
  return checkServerCard(value)
}
