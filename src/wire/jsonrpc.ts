/** JSON-RPC 2.0 message shapes and the checks every transport needs before dispatch. */

export type RequestId = string | number

export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: RequestId
  method: string
  params?: Record<string, unknown>
}

export interface JsonRpcNotification {
  jsonrpc: '2.0'
  method: string
  params?: Record<string, unknown>
}

export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0'
  id: RequestId
  result: Record<string, unknown>
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0'
  id?: RequestId
  error: JsonRpcErrorObject
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A string or an integer (basic §Requests). Integers beyond ±(2^53−1) are refused: JSON parsing rounds them,
 * so the response would carry a different id than the request.
 */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))
}

/** Classification of one decoded inbound message. */
export type Inbound =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: RequestId | undefined; reason: string }

/** Sorts a parsed JSON value into request / notification / response, or says why it is not valid JSON-RPC. */
export function classify(value: unknown): Inbound {
  if (Array.isArray(value))
    return { kind: 'invalid', id: undefined, reason: 'Batch requests are not supported' }
  if (!isRecord(value)) return { kind: 'invalid', id: undefined, reason: 'Message must be a JSON object' }
  const id = isRequestId(value.id) ? value.id : undefined
  if (value.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' }
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '') {
      return { kind: 'invalid', id, reason: 'method must be a non-empty string' }
    }
    if (value.params !== undefined && !isRecord(value.params)) {
      return { kind: 'invalid', id, reason: 'params must be an object' }
    }
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification }
    if (id === undefined)
      return { kind: 'invalid', id: undefined, reason: 'id must be a string or an integer' }
    return { kind: 'request', message: value as unknown as JsonRpcRequest }
  }
  if ('result' in value || 'error' in value)
    return { kind: 'response', message: value as unknown as JsonRpcResponse }
  return { kind: 'invalid', id, reason: 'Message is neither a request, a notification nor a response' }
}
