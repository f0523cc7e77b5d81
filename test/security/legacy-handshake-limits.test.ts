/**
 * The methods only 2025-era sessions have (`initialize`, `ping`, `logging/setLevel`,
 * `resources/subscribe`/`unsubscribe`) count against the caller's request limit like every other method:
 * unmetered, they let anyone make the server work and remember without end.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { defineResource, defineServer } from '../../src/index.js'
import { initialize, initializeParams, postRpc } from '../helpers/legacy-probe.js'
import { byHeader, live, type Live } from '../helpers/live.js'

const POINTS = 12

function limitedServer() {
  return defineServer({
    name: 'handshake-limits',
    version: '1.0.0',
    requestState: { secret: 'handshake-limits-secret-0123456789' },
    security: {
      auth: byHeader,
      secretsFromEnv: false,
      rateLimit: { requests: { points: POINTS, durationMs: 600_000 } },
    },
    resources: [defineResource({ uri: 'test://counter', name: 'counter', read: () => '0' })],
  })
}

describe('2025-era handshake methods and the request limit', () => {
  let server: Live | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('counts ping from the official SDK v1 client, and refuses it past the limit', async () => {
    server = await live(limitedServer())
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { 'x-user': 'alice' } },
      }),
    )
    let answered = 0
    let refusal: unknown
    for (let i = 0; i < POINTS * 3 && refusal === undefined; i++) {
      try {
        await client.ping()
        answered++
      } catch (error) {
        refusal = error
      }
    }
    // initialize took one point; every ping after it took one.
    expect(answered).toBe(POINTS - 1)
    expect(String(refusal)).toMatch(/Too many requests/)
    await client.close()
  })

  it('counts logging/setLevel and resources/subscribe/unsubscribe, with Retry-After past the limit', async () => {
    server = await live(limitedServer())
    const headers = { 'x-user': 'bob' }
    const { sid } = await initialize(server.url, initializeParams(), headers)
    const methods: [string, Record<string, unknown>][] = [
      ['logging/setLevel', { level: 'info' }],
      ['resources/subscribe', { uri: 'test://counter' }],
      ['resources/unsubscribe', { uri: 'test://counter' }],
    ]
    const statuses: number[] = []
    let retryAfter: string | null = null
    for (let i = 0; i < POINTS * 2; i++) {
      const [method, params] = methods[i % methods.length] as [string, Record<string, unknown>]
      const response = await postRpc(
        server.url,
        { jsonrpc: '2.0', id: i, method, params },
        sid as string,
        headers,
      )
      statuses.push(response.status)
      if (response.status === 429) retryAfter = response.headers.get('retry-after')
      await response.text()
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(POINTS - 1)
    expect(statuses.slice(POINTS - 1).every((status) => status === 429)).toBe(true)
    expect(Number(retryAfter)).toBeGreaterThan(0)
    // Another principal still has its own budget.
    const other = await initialize(server.url, initializeParams(), { 'x-user': 'carol' })
    expect(other.status).toBe(200)
  })

  it('counts initialize itself: a caller cannot open sessions without end', async () => {
    server = await live(limitedServer())
    const headers = { 'x-user': 'mallory' }
    const statuses: number[] = []
    for (let i = 0; i < POINTS * 3; i++)
      statuses.push((await initialize(server.url, initializeParams(), headers)).status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(POINTS)
    expect(statuses.slice(POINTS).every((status) => status === 429)).toBe(true)
  })

  it('answers ping and an unknown level as before within the limit', async () => {
    server = await live(limitedServer())
    const { sid } = await initialize(server.url, initializeParams(), { 'x-user': 'dave' })
    const ping = await postRpc(server.url, { jsonrpc: '2.0', id: 7, method: 'ping' }, sid as string, {
      'x-user': 'dave',
    })
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} })
    const level = await postRpc(
      server.url,
      { jsonrpc: '2.0', id: 8, method: 'logging/setLevel', params: { level: 'loud' } },
      sid as string,
      { 'x-user': 'dave' },
    )
    expect(((await level.json()) as { error: { code: number } }).error.code).toBe(-32602)
  })
})
