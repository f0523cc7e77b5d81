/**
 * Server side of `x-mcp-header`: each `Mcp-Param-*` header must match the body value (streamable-http §Server
 * Behavior for Custom Headers).
 */
import { headerMismatch } from '../../wire/errors.js'
import { HEADER_PARAM_PREFIX } from '../../wire/meta.js'
import {
  decodeHeaderValue,
  type HeaderParam,
  headerMatches,
  inHeaderRange,
  valueAt,
} from '../../schema/x-mcp-header.js'

export function checkParamHeaders(
  params: readonly HeaderParam[],
  args: unknown,
  header: (name: string) => string | undefined,
): void {
  for (const param of params) {
    const name = `Mcp-Param-${param.header}`
    const raw = header(HEADER_PARAM_PREFIX + param.header.toLowerCase())
    const value = valueAt(args, param.path)
    if (value === undefined || value === null) {
      if (raw !== undefined) throw headerMismatch(`${name} is present but the argument is absent or null`)
      continue
    }
    // A value of the wrong JSON type is left to argument validation, which explains it better.
    if (typeof value === 'object') continue
    // A body integer beyond ±(2^53−1) is not one every parser reads alike: refuse it rather than compare.
    if (typeof value === 'number' && !inHeaderRange(value)) {
      throw headerMismatch(
        `${name}: the argument ${param.path.join('.')} is outside the range x-mcp-header integers allow (±(2^53−1))`,
      )
    }
    if (raw === undefined) throw headerMismatch(`${name} header is required because the argument is present`)
    let decoded: string
    try {
      decoded = decodeHeaderValue(raw.trim())
    } catch (error) {
      throw headerMismatch(`${name} ${(error as Error).message}`)
    }
    if (!headerMatches(decoded, value)) {
      throw headerMismatch(`${name} header value does not match the argument ${param.path.join('.')}`)
    }
  }
}
