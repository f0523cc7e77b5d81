/** Response encoding. Results may be pre-serialized JSON (cached list pages) to skip re-stringifying. */
import type { McpError } from '../wire/errors.js'
import type { RequestId } from '../wire/jsonrpc.js'

const RAW = Symbol('toolwire.rawJson')

/**
 * A result that is already JSON text.
 *
 * @internal Reached through a public type, but not exported from the package entries: it may change in any release.
 */
export interface RawJson {
  readonly [RAW]: string
}

export const rawJson = (json: string): RawJson => ({ [RAW]: json })
export const isRawJson = (value: unknown): value is RawJson =>
  typeof value === 'object' && value !== null && RAW in value

export type ResultPayload = Record<string, unknown> | RawJson

/**
 * Marks a result whose strings were already cleaned and redacted where it was made (the tools/call output
 * pipeline), so the dispatcher does not walk it a second time. A symbol key: never encoded.
 */
export const CLEANED = Symbol('toolwire.cleaned')

/**
 * `metaJson`: a `_meta` object as JSON text, added as the result's last member; only for a result that has
 * no `_meta` of its own.
 */
export function encodeResult(id: RequestId, result: ResultPayload, metaJson?: string): string {
  let body = isRawJson(result) ? result[RAW] : JSON.stringify(result)
  if (metaJson !== undefined)
    body = body === '{}' ? `{"_meta":${metaJson}}` : `${body.slice(0, -1)},"_meta":${metaJson}}`
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${body}}`
}

/** `redact` rewrites string values of the error object (message and data) before it is encoded. */
export function encodeError(
  id: RequestId | undefined,
  error: McpError,
  redact?: (value: unknown) => unknown,
): string {
  const head = id === undefined ? '{"jsonrpc":"2.0"' : `{"jsonrpc":"2.0","id":${JSON.stringify(id)}`
  const body = redact ? redact(error.toJSON()) : error.toJSON()
  return `${head},"error":${JSON.stringify(body)}}`
}
