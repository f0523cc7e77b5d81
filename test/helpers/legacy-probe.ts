/**
 * The 2025-era probe server (test/servers/legacy-probe.ts) in a child process, and the few requests a bounds
 * test sends it: memory is read from the child after garbage collection, so a bound is checked by counting
 * bytes, never by timing.
 */
import { join } from 'node:path'
import { ROOT } from './paths.js'
import { startUrlProcess, type UrlProcess } from './process-url.js'

export interface Probe {
  readonly url: string
  /** Bytes the child's heap and buffers hold after a full collection. */
  held(): Promise<number>
  stop(): Promise<void>
}

export async function startProbe(options: Record<string, unknown> = {}): Promise<Probe> {
  const child: UrlProcess = await startUrlProcess(
    process.execPath,
    ['--expose-gc', '--import=tsx', join(ROOT, 'test', 'servers', 'legacy-probe.ts')],
    { cwd: ROOT, env: { PROBE_OPTIONS: JSON.stringify(options) } },
  )
  const heapUrl = new URL('/heap', child.url)
  return {
    url: child.url,
    held: async () => {
      const usage = (await (await fetch(heapUrl)).json()) as { heapUsed: number; external: number }
      return usage.heapUsed + usage.external
    },
    stop: () => child.stop(),
  }
}

export const MiB = 1024 * 1024

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** POSTs one JSON-RPC message (or batch) with a session id when given; the raw response. */
export function postRpc(url: string, body: unknown, sid?: string, extra: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...(sid !== undefined && { 'mcp-session-id': sid }), ...extra },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

export interface Answer {
  readonly status: number
  readonly body: { result?: Record<string, unknown>; error?: { code: number; message: string } }
  readonly sid: string | null
}

/** Reads a JSON (or single-event SSE) answer. */
export async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text()
  const json = response.headers.get('content-type')?.includes('event-stream')
    ? (/^data: (.*)$/m.exec(text)?.[1] ?? '{}')
    : text || '{}'
  return {
    status: response.status,
    body: JSON.parse(json) as Answer['body'],
    sid: response.headers.get('mcp-session-id'),
  }
}

export const initializeParams = (extra: Record<string, unknown> = {}, protocolVersion = '2025-11-25') => ({
  protocolVersion,
  capabilities: { roots: { listChanged: true } },
  clientInfo: { name: 'probe', version: '1' },
  ...extra,
})

/** `initialize`, returning the answer (its `sid` is the session id when the handshake succeeded). */
export async function initialize(
  url: string,
  params = initializeParams(),
  extra: Record<string, string> = {},
) {
  return answerOf(
    await postRpc(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params }, undefined, extra),
  )
}

/** A request of a session. */
export async function rpc(
  url: string,
  sid: string,
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
): Promise<Answer> {
  return answerOf(await postRpc(url, { jsonrpc: '2.0', id, method, params }, sid))
}
