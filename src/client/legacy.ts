/**
 * Telling a server that speaks only an older revision apart (versioning §Backward Compatibility with
 * Initialization-Based Versions; the probe differs per transport): after a failure that a modern server would
 * not produce, one `initialize` probe learns its version, so the error can name both sides.
 */
import type { Implementation } from '../wire/types.js'
import { SUPPORTED_VERSIONS } from '../wire/meta.js'
import { ProtocolError, TransportError, VersionMismatchError } from './errors.js'
import type { Session } from './session.js'
import { ErrorCode, isPreRevisionServerError } from '../wire/errors.js'

/** The revision the probe offers; this client speaks none of the legacy ones. */
const LEGACY_PROBE_VERSION = '2025-11-25'

/** Whether a failure may come from a legacy server (modern servers answer with a known JSON-RPC error). */
export function looksLegacy(error: unknown, fromDiscover: boolean): boolean {
  if (error instanceof VersionMismatchError) return false
  if (error instanceof TransportError) {
    // 401/403 are about credentials, not versions: surface them as they are.
    const status = error.status
    return status !== undefined && status >= 400 && status !== 401 && status !== 403
  }
  if (error instanceof ProtocolError) {
    return (
      error.code === ErrorCode.InvalidRequest ||
      isPreRevisionServerError(error.code) ||
      (fromDiscover && (error.code === ErrorCode.MethodNotFound || error.code === ErrorCode.InvalidParams))
    )
  }
  return false
}

/**
 * Probes with `initialize`; returns a VersionMismatchError when the server answers it, else the original
 * error.
 */
export async function probeLegacy(
  session: Session,
  error: unknown,
  clientInfo: Implementation,
): Promise<unknown> {
  try {
    const response = await session.transport.request(
      {
        jsonrpc: '2.0',
        id: session.nextId(),
        method: 'initialize',
        params: { protocolVersion: LEGACY_PROBE_VERSION, capabilities: {}, clientInfo },
      },
      { signal: AbortSignal.timeout(5_000) },
    )
    if ('result' in response && typeof response.result.protocolVersion === 'string') {
      return new VersionMismatchError(
        SUPPORTED_VERSIONS,
        [response.result.protocolVersion],
        `it answered a 2026-07-28 request with "${(error as Error).message}"`,
      )
    }
  } catch {
    // the probe failed too: keep the original error
  }
  return error
}
