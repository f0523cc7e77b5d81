/**
 * The client's audit record: one per `callTool`, whatever its outcome. The specification's security
 * considerations ask clients to log tool usage (server/tools §Security Considerations); `onToolCall` in
 * `ClientOptions` receives these records, and the CLI's `--audit-log` appends them to a file as JSON lines.
 */
import {
  InvalidResponseError,
  ProtocolError,
  RequestCancelledError,
  RequestTimeoutError,
  ToolExecutionError,
  TransportError,
  UnknownToolError,
} from './errors.js'
import type { CallToolResult } from '../wire/types.js'

/** How a call ended. */
export type ToolCallOutcome =
  | 'success'
  | 'tool-error' // the tool ran and reported `isError: true`
  | 'protocol-error' // the server answered with a JSON-RPC error
  | 'invalid-response' // the answer broke the protocol or the tool's outputSchema
  | 'timeout'
  | 'cancelled'
  | 'transport-error'
  | 'refused' // refused locally before anything was sent
  | 'failed' // anything else

export interface ToolCallRecord {
  readonly tool: string
  readonly arguments: Readonly<Record<string, unknown>>
  /** Where the call went: the server URL, or the stdio command. */
  readonly server: string
  /** When the call started, ISO 8601. */
  readonly startedAt: string
  readonly durationMs: number
  readonly outcome: ToolCallOutcome
  /** The error's message, for every outcome but success and tool-error. */
  readonly error?: string
  /** The JSON-RPC error code, for protocol errors. */
  readonly code?: number
}

export type ToolCallAuditor = (record: ToolCallRecord) => void

/** Classifies what a call returned or threw. */
export function outcomeOf(
  settled: { result: CallToolResult } | { error: unknown },
): Pick<ToolCallRecord, 'outcome' | 'error' | 'code'> {
  if ('result' in settled) return { outcome: settled.result.isError === true ? 'tool-error' : 'success' }
  const error = settled.error
  if (error instanceof ToolExecutionError) return { outcome: 'tool-error' }
  const message = error instanceof Error ? error.message : String(error)
  if (error instanceof ProtocolError) return { outcome: 'protocol-error', error: message, code: error.code }
  if (error instanceof InvalidResponseError) return { outcome: 'invalid-response', error: message }
  if (error instanceof RequestTimeoutError) return { outcome: 'timeout', error: message }
  if (error instanceof RequestCancelledError) return { outcome: 'cancelled', error: message }
  if (error instanceof TransportError) return { outcome: 'transport-error', error: message }
  if (error instanceof RangeError || error instanceof TypeError || error instanceof UnknownToolError)
    return { outcome: 'refused', error: message }
  return { outcome: 'failed', error: message }
}
