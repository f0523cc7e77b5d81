/**
 * Validates the `_meta` envelope every 2026-07-28 request must carry (basic/index §_meta: a missing field is
 * -32602, 400 on HTTP).
 */
import { invalidParams } from '../wire/errors.js'
import { isRecord } from '../wire/jsonrpc.js'
import {
  LOG_LEVELS,
  type LogLevel,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
} from '../wire/meta.js'
import type { ClientCapabilities, Implementation, RequestMeta } from '../wire/types.js'

const LEVELS = new Set<string>(LOG_LEVELS)
const own = Object.prototype.hasOwnProperty

export function parseRequestMeta(params: Record<string, unknown> | undefined): RequestMeta {
  const raw = params?._meta
  if (!isRecord(raw)) throw invalidParams('Invalid params: missing required _meta')
  const protocolVersion = raw[META_PROTOCOL_VERSION]
  if (typeof protocolVersion !== 'string' || protocolVersion === '') {
    throw invalidParams(`Invalid params: _meta is missing required field ${META_PROTOCOL_VERSION}`)
  }
  const clientCapabilities = raw[META_CLIENT_CAPABILITIES]
  if (!isRecord(clientCapabilities)) {
    throw invalidParams(`Invalid params: _meta is missing required field ${META_CLIENT_CAPABILITIES}`)
  }
  for (const key in clientCapabilities) {
    if (!own.call(clientCapabilities, key)) continue
    if (!isRecord(clientCapabilities[key]))
      throw invalidParams(`Invalid params: client capability '${key}' must be an object`)
  }
  const meta: RequestMeta = {
    protocolVersion,
    clientCapabilities: clientCapabilities as ClientCapabilities,
    raw,
  }
  const clientInfo = raw[META_CLIENT_INFO]
  if (clientInfo !== undefined) {
    if (
      !isRecord(clientInfo) ||
      typeof clientInfo.name !== 'string' ||
      typeof clientInfo.version !== 'string'
    ) {
      throw invalidParams(`Invalid params: ${META_CLIENT_INFO} must have string name and version`)
    }
    meta.clientInfo = clientInfo as unknown as Implementation
  }
  const logLevel = raw[META_LOG_LEVEL]
  if (logLevel !== undefined) {
    if (typeof logLevel !== 'string' || !LEVELS.has(logLevel)) {
      throw invalidParams(`Invalid params: unknown log level ${JSON.stringify(logLevel)}`)
    }
    meta.logLevel = logLevel as LogLevel
  }
  const progressToken = raw.progressToken
  if (progressToken !== undefined) {
    if (
      typeof progressToken !== 'string' &&
      !(typeof progressToken === 'number' && Number.isInteger(progressToken))
    ) {
      throw invalidParams('Invalid params: progressToken must be a string or an integer')
    }
    meta.progressToken = progressToken
  }
  return meta
}
