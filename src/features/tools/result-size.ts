/**
 * The bytes added to a tool result after the output guard measured it, so the size cap counts the whole
 * encoded result (the `result` member of the JSON-RPC response), not only what the handler returned.
 */
import { META_SERVER_INFO } from '../../wire/meta.js'
import type { CallToolResult, Implementation } from '../../wire/types.js'

/** `"resultType":"complete",` in bytes: the member `complete()` adds in front of the result. */
const RESULT_TYPE_BYTES = '"resultType":"complete",'.length

/** Bytes of `{"<serverInfo key>":<server info>}` as the dispatcher encodes it, per server info (computed once). */
const serverInfoBytes = new WeakMap<Implementation, number>()

/** The last server info asked about, and its size: a process nearly always serves one server. */
let lastInfo: Implementation | undefined
let lastInfoBytes = 0

function metaJsonBytes(info: Implementation): number {
  if (info === lastInfo) return lastInfoBytes
  let bytes = serverInfoBytes.get(info)
  if (bytes === undefined) {
    bytes = new TextEncoder().encode(JSON.stringify({ [META_SERVER_INFO]: info })).length
    serverInfoBytes.set(info, bytes)
  }
  lastInfo = info
  lastInfoBytes = bytes
  return bytes
}

/**
 * What is added to a result after the guard measured it, so the cap counts the whole encoded result:
 * `resultType` (added by `complete()` in call.ts) and the server info in `_meta` (the dispatcher: `,"_meta":{…}` for a result without
 * `_meta`, one more member in a result's own `_meta`).
 */
export function addedBytes(result: CallToolResult, info: Implementation | undefined): number {
  if (info === undefined) return RESULT_TYPE_BYTES
  const meta = result._meta as Record<string, unknown> | undefined
  if (meta === undefined) return RESULT_TYPE_BYTES + ',"_meta":'.length + metaJsonBytes(info)
  if (META_SERVER_INFO in meta) return RESULT_TYPE_BYTES
  let members = false
  for (const key in meta) if (meta[key] !== undefined) members = true
  return RESULT_TYPE_BYTES + metaJsonBytes(info) - 2 + (members ? 1 : 0)
}
