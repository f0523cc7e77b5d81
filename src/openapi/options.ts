/**
 * What `fromOpenAPI` takes (`OpenAPIOptions`) and what it tells (`OpenAPIWarning`), with the defaults and the
 * check of the options given.
 */
import type { DocumentLimits } from '../wire/document-loader.js'
import type { OpenAPIAuth } from './auth.js'
import type { OpenAPIProblem } from './errors.js'
import type { OperationFilter, Rename } from './operations.js'

/**
 * How `fromOpenAPI` makes and calls tools.
 *
 * @example
 * ```ts
 * const options: OpenAPIOptions = {
 *   baseUrl: 'https://api.example.com/v1',
 *   auth: { type: 'bearer', token: process.env.API_TOKEN ?? '' },
 *   include: { tags: ['pets'] },
 *   exclude: { methods: ['delete'] },
 *   rename: { listPets: 'pets_list' },
 * }
 * ```
 */
export interface OpenAPIOptions {
  /** Where calls go; default: the document's first `servers` URL (Swagger 2.0: `schemes`, `host`, `basePath`). */
  readonly baseUrl?: string
  /** Sent with every request to the API's origin (never to another origin a redirect points at). */
  readonly headers?: Readonly<Record<string, string>>
  readonly auth?: OpenAPIAuth
  /** Only operations that match become tools. */
  readonly include?: OperationFilter
  /** Operations that match do not become tools. */
  readonly exclude?: OperationFilter
  /** Tool names by operationId or `"GET /path"`, or a function; default: the operationId, made to fit. */
  readonly rename?: Rename
  /** Put before every generated name (not before the ones `rename` gives). */
  readonly namePrefix?: string
  /** The largest response body read, in bytes (default 1 MiB): a larger one is a tool error. */
  readonly maxResponseBytes?: number
  /** How much of a non-2xx response's body the tool error quotes (default 1000 characters). */
  readonly maxErrorBodyChars?: number
  /** Redirects followed per call (default 5). */
  readonly maxRedirects?: number
  /** The tools' `timeoutMs` (default: the server's tool timeout). */
  readonly timeoutMs?: number
  /** The fetch calls go through (default: the global `fetch`). */
  readonly fetch?: typeof fetch
  /**
   * Load the document from a loopback, private, link-local or otherwise non-public address (default false):
   * for a document served on this machine or the local network on purpose. Every address is judged after
   * DNS, each redirect hop too. It also lets a remote document's `servers` (without `baseUrl`) name such an
   * address: otherwise their operations are refused at load, and a call's redirect to one is not followed.
   */
  readonly allowPrivate?: boolean
  /** Let a local document's `$ref`s read files outside the document's own folder (default false). */
  readonly allowFilesOutside?: boolean
  /**
   * Which addresses count as private (default `isPrivateAddress` from `toolwire/client`), for loading the
   * document and for judging a remote document's `servers`.
   */
  readonly isPrivateAddress?: (address: string) => boolean
  /** Bounds on reading the document and what its `$ref`s bring in (defaults in docs/security.md). */
  readonly documentLimits?: Partial<DocumentLimits>
  /**
   * Refuse the whole document when any operation cannot become a valid tool, or two share an operationId or
   * a name (default false: such an operation is skipped, or named otherwise, with a warning).
   */
  readonly strict?: boolean
  /**
   * A 2xx answer that does not match the documented response schema is a tool error (default false: it is
   * returned as data, with the mismatch under `_meta["dev.toolwire/openapi"].responseMismatch`).
   */
  readonly strictResponses?: boolean
  /** Told each operation skipped (`skipped: true`) or named otherwise than asked (default: `console.warn`). */
  readonly onWarning?: (warning: OpenAPIWarning) => void
}

/**
 * What `fromOpenAPI` tolerated in a document: an operation it left out (`skipped`), or one it named from
 * its method and path or with a suffix because its operationId or name was taken.
 *
 * @example
 * ```ts
 * const tools = await fromOpenAPI('./api.yaml', {
 *   onWarning: (warning: OpenAPIWarning) => console.error(`${warning.operation}: ${warning.reason}`),
 * })
 * ```
 */
export interface OpenAPIWarning extends OpenAPIProblem {
  readonly skipped: boolean
}

/** The bounds on each call when the options do not say. */
export const OPENAPI_DEFAULTS = { maxResponseBytes: 1_048_576, maxErrorBodyChars: 1000, maxRedirects: 5 }

/** Refuses options no call could honour (TypeError, like a wrong argument). */
export function checkOptions(options: OpenAPIOptions): void {
  for (const key of ['maxResponseBytes', 'maxErrorBodyChars', 'maxRedirects'] as const) {
    const value = options[key]
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      throw new TypeError(`${key} must be an integer >= 0`)
  }
  for (const [key, value] of Object.entries(options.documentLimits ?? {})) {
    const least = key === 'maxRedirects' ? 0 : 1
    if (value !== undefined && !(Number.isInteger(value) && value >= least))
      throw new TypeError(`documentLimits.${key} must be an integer >= ${least}`)
  }
  if (options.baseUrl !== undefined && !/^https?:$/.test(new URL(options.baseUrl).protocol))
    throw new TypeError('baseUrl must be an http(s) URL') // new URL throws for one that is not a URL
}
