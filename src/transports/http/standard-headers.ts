/**
 * Checks on the standard headers against the body (streamable-http §Standard Request Headers, §Server
 * Validation; order: headers before version support).
 */
import type { MethodSpec } from '../../protocol/dispatcher.js'
import { decodeHeaderValue } from '../../schema/x-mcp-header.js'
import { headerMismatch } from '../../wire/errors.js'
import type { JsonRpcRequest } from '../../wire/jsonrpc.js'
import { HEADER_METHOD, HEADER_NAME, HEADER_PROTOCOL_VERSION } from '../../wire/meta.js'
import type { RequestMeta } from '../../wire/types.js'

/**
 * The header's value as the comparisons below see it (trimmed). A value with a visible ASCII character at
 * each end has nothing to trim: nearly every header, and then no copy is made.
 */
function headerValue(view: { header(name: string): string | undefined }, name: string): string | undefined {
  const raw = view.header(name)
  if (raw === undefined || raw === '') return raw
  return isVisibleAscii(raw.charCodeAt(0)) && isVisibleAscii(raw.charCodeAt(raw.length - 1))
    ? raw
    : raw.trim()
}

const isVisibleAscii = (code: number): boolean => code > 0x20 && code < 0x7f

export function checkStandardHeaders(
  view: { header(name: string): string | undefined },
  request: JsonRpcRequest,
  meta: RequestMeta,
  spec: MethodSpec | undefined,
): void {
  const version = headerValue(view, HEADER_PROTOCOL_VERSION)
  if (version === undefined || version === '') throw headerMismatch('MCP-Protocol-Version header is required')
  if (version !== meta.protocolVersion) {
    throw headerMismatch(
      `MCP-Protocol-Version header '${version}' does not match _meta protocolVersion '${meta.protocolVersion}'`,
    )
  }
  const method = headerValue(view, HEADER_METHOD)
  if (method === undefined || method === '') throw headerMismatch('Mcp-Method header is required')
  if (method !== request.method) {
    throw headerMismatch(`Mcp-Method header value '${method}' does not match body value '${request.method}'`)
  }
  if (!spec?.nameParam) return
  const bodyName = request.params?.[spec.nameParam]
  const raw = headerValue(view, HEADER_NAME)
  if (raw === undefined || raw === '') throw headerMismatch('Mcp-Name header is required for this method')
  let name: string
  try {
    name = decodeHeaderValue(raw)
  } catch (error) {
    throw headerMismatch(`Mcp-Name header ${(error as Error).message}`)
  }
  if (typeof bodyName === 'string' && name !== bodyName) {
    throw headerMismatch(`Mcp-Name header value '${name}' does not match body value '${bodyName}'`)
  }
}
