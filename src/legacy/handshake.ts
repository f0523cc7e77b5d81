/**
 * The `initialize` handshake of 2025-era clients (2025-11-25 basic/lifecycle §Initialization) and what a
 * session's requests carry in place of the current revision's `_meta` envelope.
 */
import { invalidParams } from '../wire/errors.js'
import { isRecord } from '../wire/jsonrpc.js'
import type { ClientCapabilities, Implementation, RequestMeta } from '../wire/types.js'
import type { LegacyHost } from './engine.js'
import type { PeerState } from './peer-states.js'
import type { LegacySession } from './session.js'
import { legacyCapabilities, negotiateVersion } from './versions.js'

/** The outcome of a valid `initialize`. */
export interface Negotiated {
  readonly version: string
  readonly capabilities: ClientCapabilities
  readonly clientInfo: Implementation | undefined
  readonly result: Record<string, unknown>
}

const utf8Length = (text: string): number => new TextEncoder().encode(text).byteLength

/** Checks an `initialize` request and builds its result (2025-11-25 basic/lifecycle §Initialization). */
export function negotiate(
  params: Record<string, unknown>,
  host: Pick<LegacyHost, 'capabilities' | 'info' | 'instructions'>,
  maxHandshakeBytes: number,
): Negotiated {
  if (typeof params.protocolVersion !== 'string')
    throw invalidParams('Invalid params: initialize needs a protocolVersion string')
  const capabilities = params.capabilities ?? {}
  if (!isRecord(capabilities)) throw invalidParams('Invalid params: capabilities must be an object')
  const info = params.clientInfo
  if (info !== undefined && !(isRecord(info) && typeof info.name === 'string'))
    throw invalidParams('Invalid params: clientInfo needs a name')
  // What the client declares is carried in its session id on every request: it may not be unbounded.
  const declared = utf8Length(JSON.stringify({ capabilities, clientInfo: info }))
  if (declared > maxHandshakeBytes)
    throw invalidParams(
      `Invalid params: capabilities and clientInfo take ${declared} bytes; at most ${maxHandshakeBytes}`,
    )
  const version = negotiateVersion(params.protocolVersion)
  const result: Record<string, unknown> = {
    protocolVersion: version,
    capabilities: legacyCapabilities(host.capabilities),
    serverInfo: host.info,
  }
  if (host.instructions !== undefined) result.instructions = host.instructions
  return {
    version,
    capabilities: capabilities as ClientCapabilities,
    clientInfo: info as Implementation | undefined,
    result,
  }
}

/** What a session's request carries in place of the current revision's `_meta` envelope. */
export function sessionMeta(
  session: Pick<LegacySession, 'version' | 'capabilities' | 'clientInfo'>,
  peer: PeerState,
  params: Record<string, unknown>,
): RequestMeta {
  const raw = isRecord(params._meta) ? params._meta : {}
  const meta: RequestMeta = {
    protocolVersion: session.version,
    clientCapabilities: session.capabilities,
    raw,
  }
  if (session.clientInfo) meta.clientInfo = session.clientInfo
  if (peer.logLevel) meta.logLevel = peer.logLevel
  const token = raw.progressToken
  if (typeof token === 'string' || (typeof token === 'number' && Number.isInteger(token)))
    meta.progressToken = token
  return meta
}
