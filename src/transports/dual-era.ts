/**
 * What a transport needs to serve 2025-era clients beside 2026-07-28 ones (basic/versioning §Backward
 * Compatibility): the request handler, plus the legacy engine and the session-id codec when the server
 * keeps legacy support on. `Server` is one; a handler without them serves 2026-07-28 only.
 */
import type { RequestHandler } from '../protocol/handler.js'
import type { LegacyEngine } from '../legacy/engine.js'
import type { SessionCodec } from '../legacy/session.js'

export interface DualEraHandler extends RequestHandler {
  /** Serves `initialize` sessions; undefined when the server speaks only 2026-07-28. */
  readonly legacy?: LegacyEngine | undefined
  /** Seals and opens 2025-era `Mcp-Session-Id` values. */
  readonly sessions?: SessionCodec | undefined
}
