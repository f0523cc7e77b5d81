/** The page's only peer: the CLI's local API (token from the page's own URL) and its event stream. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = Record<string, unknown>

const token = new URLSearchParams(location.search).get('token') ?? ''

export async function api<T = JsonObject>(operation: string, body: JsonObject = {}): Promise<T> {
  const response = await fetch(`/api/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-inspector-token': token },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${operation}: HTTP ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

export interface InspectorEvent {
  readonly type: string
  readonly [key: string]: unknown
}

export function events(listener: (event: InspectorEvent) => void): () => void {
  const source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`)
  source.onmessage = (message: MessageEvent<string>) => listener(JSON.parse(message.data) as InspectorEvent)
  return () => source.close()
}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export const errorOf = (value: unknown): string | undefined =>
  isObject(value) && typeof value.error === 'string' ? value.error : undefined
