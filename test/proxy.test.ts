/**
 * `defineProxy` with real peers: upstream @modelcontextprotocol/server-everything (2025-era, stdio) and a
 * toolwire server (2026-07-28, stdio in a child process and HTTP in-process); downstream the official SDK v1
 * client, the SDK v2 client and toolwire's client over Streamable HTTP. Lists and calls go through; progress
 * and cancellation travel end to end; tool errors stay tool errors and protocol errors keep their code; a
 * crashed upstream fails the call in flight and is restarted for the next; a hostile upstream is held back
 * by the downstream guards.
 */
import { join } from 'node:path'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, ProtocolError } from '../src/client/index.js'
import { defineTool } from '../src/features/tools/define.js'
import { defineServer } from '../src/server.js'
import { connectStdio } from '../src/client/stdio-entry.js'
import { defineProxy, type ProxyServer, Upstream } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { EVERYTHING_SERVER as EVERYTHING, ROOT, testServer } from './helpers/paths.js'
import { textOf, until } from './helpers/wait.js'

const UPSTREAM = testServer('proxy-upstream.mjs')

/** Waits for `check` to hold, polling, with a generous deadline (no fixed sleeps). */

async function sdkV1(url: string): Promise<SdkClient> {
  const client = new SdkClient({ name: 'sdk-v1-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

async function sdkV2(url: string): Promise<ClientV2> {
  const client = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
  await client.connect(new HttpTransportV2(new URL(url)))
  return client
}

describe('a proxy of server-everything (2025-era, stdio)', () => {
  let proxy: ProxyServer
  let running: RunningServer
  beforeAll(async () => {
    proxy = await defineProxy({ target: { command: process.execPath, args: [EVERYTHING], stderr: 'ignore' } })
    running = await serveNode(proxy, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await running?.close()
  })

  it('takes its identity and capabilities from the upstream', () => {
    expect(proxy.info).toEqual({ name: 'mcp-servers/everything', version: expect.any(String) })
    expect(proxy.capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {} })
  })

  it('lists and calls through the SDK v1 client, progress included', async () => {
    const client = await sdkV1(running.url)
    try {
      const { tools } = await client.listTools()
      const sum = tools.find((tool) => tool.name === 'get-sum')
      expect(sum?.inputSchema).toMatchObject({ type: 'object', properties: { a: {}, b: {} } })
      expect(textOf(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }))).toContain('5')
      const progress: number[] = []
      const result = await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
        undefined,
        { onprogress: (p) => void progress.push(p.progress) },
      )
      expect(textOf(result)).toContain('completed')
      expect(progress).toEqual([1, 2, 3, 4])
    } finally {
      await client.close()
    }
  })

  it('lists and calls through the SDK v2 client, structured output included', async () => {
    const client = await sdkV2(running.url)
    try {
      const { tools } = await client.listTools()
      const structured = tools.find((tool) => tool.name === 'get-structured-content')
      expect(structured?.outputSchema).toBeDefined()
      const result = await client.callTool({
        name: 'get-structured-content',
        arguments: { location: 'New York' },
      })
      expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number) })
    } finally {
      await client.close()
    }
  })

  it('runs a 2025-11-25 tool that needs a task as a plain call downstream', async () => {
    const client = await sdkV2(running.url)
    try {
      const result = await client.callTool({ name: 'simulate-research-query', arguments: { topic: 'cats' } })
      expect(result.isError).not.toBe(true)
      expect(textOf(result)).toContain('simulated research report')
    } finally {
      await client.close()
    }
  }, 30_000)

  it('passes prompts and resources (listed, read, templates) to toolwire’s client', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const prompts = await client.listPrompts()
      expect(prompts.map((p) => p.name)).toContain('args-prompt')
      const prompt = await client.getPrompt('args-prompt', { city: 'Paris' })
      expect(JSON.stringify(prompt.messages)).toContain('Paris')
      const resources = await client.listResources()
      const first = resources[0]
      expect(first).toBeDefined()
      const read = await client.readResource(first!.uri)
      expect(read.contents[0]?.uri).toBe(first!.uri)
      const templates = await client.listResourceTemplates()
      const text = templates.find((t) => t.uriTemplate.includes('dynamic/text'))
      expect(text).toBeDefined()
      const dynamic = await client.readResource(text!.uriTemplate.replace('{resourceId}', '7'))
      expect(JSON.stringify(dynamic.contents)).toContain('7')
    } finally {
      await client.close()
    }
  })
})

describe('a proxy of a toolwire server over stdio', () => {
  let proxy: ProxyServer
  let running: RunningServer
  beforeAll(async () => {
    proxy = await defineProxy({
      target: { command: process.execPath, args: [UPSTREAM], stderr: 'ignore' },
      restart: { initialDelayMs: 10, maxDelayMs: 100 },
    })
    running = await serveNode(proxy, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await running?.close()
  })

  it('mirrors the tool definitions: title, description, schemas, annotations, _meta', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const sum = (await client.listTools()).tools.find((tool) => tool.name === 'sum')
      expect(sum).toMatchObject({
        title: 'Sum',
        description: 'Adds',
        annotations: { readOnlyHint: true },
        icons: [{ src: 'data:image/png;base64,iVBORw0KGgo=', mimeType: 'image/png' }],
        _meta: { 'example.com/tag': 'math' },
        inputSchema: { type: 'object', required: ['a', 'b'] },
        outputSchema: { type: 'object', required: ['sum'] },
      })
      const result = await client.callTool('sum', { a: 1, b: 2 })
      expect(result.structuredContent).toEqual({ sum: 3 })
    } finally {
      await client.close()
    }
  })

  it('checks arguments downstream before the upstream sees them', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const result = await client.callTool('sum', { a: 'one', b: 2 })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toMatch(/a/)
    } finally {
      await client.close()
    }
  })

  it('keeps an upstream tool error a tool error, and a protocol error its code and data', async () => {
    const client = await sdkV1(running.url)
    try {
      const failed = await client.callTool({ name: 'fail', arguments: {} })
      expect(failed.isError).toBe(true)
      expect(textOf(failed)).toContain('upstream says no')
      await expect(client.callTool({ name: 'protocol', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('upstream refuses these params'),
        data: { field: 'x' },
      })
    } finally {
      await client.close()
    }
  })

  it('relays progress and cancels the upstream call when the downstream caller cancels', async () => {
    const client = await sdkV1(running.url)
    try {
      const controller = new AbortController()
      const progress: number[] = []
      const call = client.callTool({ name: 'wait', arguments: {} }, undefined, {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p.progress)
          controller.abort()
        },
      })
      await expect(call).rejects.toThrow()
      expect(progress).toEqual([1])
      await until(
        async () => textOf(await client.callTool({ name: 'cancelled', arguments: {} })) === '1',
        'the upstream to see the cancellation',
      )
    } finally {
      await client.close()
    }
  })

  it('fails the call in flight when the upstream crashes, and restarts it for the next', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const before = textOf(await client.callTool('pid', {}))
      const crashed = client.callTool('crash', {})
      await expect(crashed).rejects.toBeInstanceOf(ProtocolError)
      await expect(crashed).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(/Upstream server unavailable: .*exited/),
      })
      const after = textOf(await client.callTool('pid', {}))
      expect(after).toMatch(/^\d+$/)
      expect(after).not.toBe(before)
      expect(proxy.upstream.restarts).toBe(1)
    } finally {
      await client.close()
    }
  })

  it('shares one upstream process between callers', async () => {
    const a = connect({ url: running.url }, { warn: () => {} })
    const b = await sdkV2(running.url)
    try {
      const [one, two] = await Promise.all([
        a.callTool('pid', {}),
        b.callTool({ name: 'pid', arguments: {} }),
      ])
      expect(textOf(one)).toBe(textOf(two))
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('holds a hostile upstream back: escape sequences stripped, huge output capped', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const escapes = (await client.listTools()).tools.find((tool) => tool.name === 'escapes')
      expect(escapes?.description).toBe('Harmless tool')
      expect(textOf(await client.callTool('escapes', {}))).not.toContain('\u001b')
      const huge = await client.callTool('huge', {})
      expect(JSON.stringify(huge).length).toBeLessThanOrEqual(1024 * 1024 + 4096)
      expect(JSON.stringify(huge).length).toBeLessThan(4 * 1024 * 1024)
    } finally {
      await client.close()
    }
  })
})

describe('a proxy of a toolwire server over HTTP', () => {
  it('re-lists and announces downstream when the upstream’s tools change', async () => {
    const upstream = defineServer({
      name: 'changing',
      version: '1.0.0',
      tools: [defineTool({ name: 'first', handler: () => 'one' })],
    })
    const upstreamHttp = await serveNode(upstream, { port: 0 })
    const proxy = await defineProxy({ target: { url: upstreamHttp.url } })
    const running = await serveNode(proxy, { port: 0 })
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      let latest: string[] = []
      const subscription = await client.subscribe(
        { toolsListChanged: true },
        { onToolsChanged: (tools) => (latest = tools.map((tool) => tool.name)) },
      )
      upstream.tools.add(defineTool({ name: 'second', handler: () => 'two' }))
      await until(() => latest.includes('second'), 'the downstream list to change')
      expect(textOf(await client.callTool('second', {}))).toBe('two')
      await subscription.close()
    } finally {
      await client.close()
      await running.close()
      await upstreamHttp.close()
    }
  })

  it('refuses to start, quickly and clearly, when the upstream cannot be reached', async () => {
    const closed = await serveNode(defineServer({ name: 'gone', version: '1.0.0' }), { port: 0 })
    const url = closed.url
    await closed.close()
    await expect(defineProxy({ target: { url } })).rejects.toThrow(
      /Upstream server unavailable: .*Cannot reach/,
    )
    await expect(
      defineProxy({ target: { command: join(ROOT, 'no-such-server-binary') }, startTimeoutMs: 5_000 }),
    ).rejects.toThrow(/Upstream server unavailable/)
  })

  it('gives up on an upstream that never answers after startTimeoutMs', async () => {
    const silent = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }
    const started = Date.now()
    await expect(defineProxy({ target: silent, startTimeoutMs: 300 })).rejects.toThrow(
      /Upstream server unavailable: .*did not answer in time/,
    )
    // With the 10 s default the two era probes would take 20 s: a generous bound that still tells them apart.
    expect(Date.now() - started).toBeLessThan(15_000)
  })
})

describe('restarting a stdio upstream that keeps dying', () => {
  it('waits longer after each death in a row, up to maxDelayMs, and fails each call clearly', async () => {
    const dying = { command: process.execPath, args: ['-e', 'process.exit(1)'], stderr: 'ignore' as const }
    const upstream = new Upstream(() => connectStdio(dying, { warn: () => {} }), 'dying', {
      initialDelayMs: 20,
      maxDelayMs: 80,
    })
    const delays: number[] = []
    try {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        await expect(upstream.use((client) => client.discover())).rejects.toMatchObject({
          code: -32603,
          message: expect.stringMatching(/Upstream server unavailable: dying: .*exited/),
        })
        delays.push(upstream.restartDelayMs)
      }
    } finally {
      await upstream.close()
    }
    expect(delays).toEqual([0, 20, 40, 80, 80])
    expect(upstream.restarts).toBe(5)
  })
})
