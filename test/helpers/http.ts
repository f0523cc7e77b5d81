/** In-process HTTP harness: builds spec-correct POSTs, calls a fetch handler, parses JSON or SSE answers. */
import { assertServerMessage } from './spec-schema.js'

export const VERSION = '2026-07-28'

export function meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'toolwire-tests', version: '0.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  }
}

export interface PostOptions {
  id?: string | number
  headers?: Record<string, string | undefined>
  /** Replace the standard headers entirely. */
  rawHeaders?: Record<string, string>
  meta?: Record<string, unknown>
  signal?: AbortSignal
}

export interface Answer {
  status: number
  headers: Headers
  contentType: string
  /** Every JSON-RPC message received, in order (one for JSON, several for SSE). */
  messages: Record<string, unknown>[]
  /** The final response message (the one with an id), if any. */
  response: Record<string, unknown> | undefined
  text: string
}

let nextId = 1

export function standardHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': method,
  }
  const name = params.name ?? params.uri
  if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read'].includes(method)) {
    headers['mcp-name'] = name
  }
  return headers
}

export function parseSse(text: string): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = []
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n')
    if (data) messages.push(JSON.parse(data) as Record<string, unknown>)
  }
  return messages
}

export async function readAnswer(response: Response, method?: string): Promise<Answer> {
  const text = await response.text()
  const contentType = response.headers.get('content-type') ?? ''
  let messages: Record<string, unknown>[] = []
  if (contentType.startsWith('text/event-stream')) messages = parseSse(text)
  else if (text) messages = [JSON.parse(text) as Record<string, unknown>]
  for (const message of messages) assertServerMessage(message, method)
  return {
    status: response.status,
    headers: response.headers,
    contentType,
    messages,
    response:
      messages.find((m) => 'id' in m && ('result' in m || 'error' in m)) ??
      messages.find((m) => 'error' in m),
    text,
  }
}

export type Fetcher = (request: Request) => Promise<Response>

/** POSTs one request through a fetch-style handler (or real fetch against a URL). */
export async function post(
  fetcher: Fetcher,
  method: string,
  params: Record<string, unknown> = {},
  options: PostOptions = {},
  url = 'http://127.0.0.1/mcp',
): Promise<Answer> {
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? nextId++,
    method,
    params: { _meta: options.meta ?? meta(), ...params },
  }
  const headers = options.rawHeaders ?? { ...standardHeaders(method, params) }
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[key]
    else headers[key] = value
  }
  const init: RequestInit = { method: 'POST', headers, body: JSON.stringify(body) }
  if (options.signal) init.signal = options.signal
  return readAnswer(await fetcher(new Request(url, init)), method)
}

/** POSTs raw bytes with the given headers (for malformed-input tests). */
export async function postRaw(
  fetcher: Fetcher,
  body: string | Uint8Array,
  headers: Record<string, string>,
  url = 'http://127.0.0.1/mcp',
  method = 'POST',
): Promise<Answer> {
  const init: RequestInit = { method, headers }
  if (method !== 'GET' && method !== 'HEAD') init.body = body as BodyInit
  return readAnswer(await fetcher(new Request(url, init)))
}

export function resultOf(answer: Answer): Record<string, unknown> {
  const response = answer.response
  if (!response || !('result' in response)) throw new Error(`expected a result, got ${answer.text}`)
  return response.result as Record<string, unknown>
}

export function errorOf(answer: Answer): { code: number; message: string; data?: unknown } {
  const response = answer.response
  if (!response || !('error' in response))
    throw new Error(`expected an error, got ${answer.status} ${answer.text}`)
  return response.error as { code: number; message: string; data?: unknown }
}
