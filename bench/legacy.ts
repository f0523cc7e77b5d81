/**
 * The 2025-era leg of the benchmark: the same `add` call sent the way a 2025-11-25 client sends it (no
 * `_meta`, `MCP-Protocol-Version: 2025-11-25`, the session id the server handed out at `initialize`, if any).
 */
export const LEGACY_VERSION = '2025-11-25'

export function legacyCallMessage(id: number): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }
}

/** Why a 2025-era tools/call answer is wrong: the sum, and none of the 2026-07-28 result fields. */
export function legacyCallProblem(message: unknown, id: number, sum: number): string | undefined {
  const response = message as { id?: unknown; result?: Record<string, unknown>; error?: unknown }
  if (response.id !== id) return `wrong id ${JSON.stringify(response.id)}`
  if (!response.result) return `no result: ${JSON.stringify(response.error)}`
  for (const field of ['resultType', 'ttlMs', 'cacheScope'])
    if (field in response.result) return `2026-07-28 field ${field} in a 2025-11-25 result`
  const structured = response.result.structuredContent as { sum?: unknown } | undefined
  return structured?.sum === sum ? undefined : `structuredContent ${JSON.stringify(structured)}`
}

/** Opens a 2025-11-25 session (initialize, then notifications/initialized); returns the headers to send. */
export async function openLegacySession(url: string): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LEGACY_VERSION,
        capabilities: {},
        clientInfo: { name: 'toolwire-bench', version: '0.1.0' },
      },
    }),
  })
  const text = await init.text()
  if (init.status !== 200 || !text.includes(`"protocolVersion":"${LEGACY_VERSION}"`))
    throw new Error(`initialize failed: HTTP ${init.status} ${text.slice(0, 200)}`)
  const session = init.headers.get('mcp-session-id')
  const out: Record<string, string> = { ...headers, 'mcp-protocol-version': LEGACY_VERSION }
  if (session) out['mcp-session-id'] = session
  const initialized = await fetch(url, {
    method: 'POST',
    headers: out,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  })
  await initialized.arrayBuffer()
  return out
}

/** One answer's body as JSON, from a plain JSON response or the last message of an SSE stream. */
export function parseAnswer(body: string): unknown {
  const trimmed = body.trim()
  if (trimmed.startsWith('{')) return JSON.parse(trimmed)
  const data = trimmed
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
  return JSON.parse(data.at(-1) ?? 'null')
}
