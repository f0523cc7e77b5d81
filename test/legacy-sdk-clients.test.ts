/**
 * 2025-era clients against the same server definitions that serve 2026-07-28: the official SDK v1 client
 * (1.32.2) over stateful Streamable HTTP and over stdio, and the SDK v2 client on its default negotiation.
 * They list and call the demo's tools (structured output, progress, an elicitation form), set a log level,
 * subscribe to a resource, hear list changes, answer sampling and roots requests, and cancel a call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDemoServer } from '../src/demo/server.js'
import type { Server } from '../src/server.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { CLI, testServer } from './helpers/paths.js'
import { textOf, until } from './helpers/wait.js'

const LEGACY_SERVER = testServer('legacy-server.mjs')

/** Waits for `check` to hold, polling, with a generous deadline (no fixed sleeps). */

interface Peer {
  client: Client
  close(): Promise<void>
  elicited: unknown[]
  notifications: { method: string; params?: unknown }[]
}

function sdkV1Client(): Peer {
  const elicited: unknown[] = []
  const notifications: Peer['notifications'] = []
  const client = new Client(
    { name: 'sdk-v1-test', version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } },
  )
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicited.push(request.params)
    return { action: 'accept', content: { title: 'Groceries', body: 'milk, eggs', tags: 'home' } }
  })
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: 'hi there' },
  }))
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work' }] }))
  for (const schema of [
    LoggingMessageNotificationSchema,
    ResourceUpdatedNotificationSchema,
    ToolListChangedNotificationSchema,
  ]) {
    client.setNotificationHandler(schema, (notification) => {
      notifications.push(notification)
    })
  }
  return { client, elicited, notifications, close: () => client.close() }
}

async function http(server: Server): Promise<{ running: RunningServer; url: URL }> {
  const running = await serveNode(server, { host: '127.0.0.1', port: 0 })
  return { running, url: new URL(running.url) }
}

let demoHttp: { running: RunningServer; url: URL }
let legacyHttp: { running: RunningServer; url: URL }

beforeAll(async () => {
  demoHttp = await http(createDemoServer())
  const legacyModule = (await import(LEGACY_SERVER)) as { default: Server }
  legacyHttp = await http(legacyModule.default)
})

afterAll(async () => {
  await demoHttp.running.close()
  await legacyHttp.running.close()
})

type Connect = (which: 'demo' | 'legacy', peer: Peer) => Promise<() => Promise<void>>

const transports: [string, Connect][] = [
  [
    'Streamable HTTP (stateful)',
    async (which, peer) => {
      const transport = new StreamableHTTPClientTransport(which === 'demo' ? demoHttp.url : legacyHttp.url)
      await peer.client.connect(transport)
      expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/)
      return async () => {
        await transport.terminateSession()
        await peer.close()
      }
    },
  ],
  [
    'stdio',
    async (which, peer) => {
      const args = which === 'demo' ? [CLI, 'demo', '--stdio'] : [CLI, 'serve', LEGACY_SERVER, '--stdio']
      const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' })
      await peer.client.connect(transport)
      return () => peer.close()
    },
  ],
]

describe.each(transports)('SDK v1 client over %s', (_label, connect) => {
  it('negotiates 2025-11-25 and lists and calls the demo tools: structured output, progress, elicitation', async () => {
    const peer = sdkV1Client()
    const close = await connect('demo', peer)
    try {
      expect(peer.client.getServerVersion()?.name).toBe('toolwire-demo')
      expect(peer.client.getServerCapabilities()?.tools).toEqual({ listChanged: true })
      const { tools } = await peer.client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['arithmetic', 'countdown', 'add_note']),
      )

      const sum = await peer.client.callTool({ name: 'arithmetic', arguments: { op: 'add', a: 2, b: 3 } })
      expect(sum.structuredContent).toEqual({ result: 5 })
      expect(sum).not.toHaveProperty('resultType')

      const progress: number[] = []
      const waited = await peer.client.callTool({ name: 'countdown', arguments: { seconds: 1 } }, undefined, {
        onprogress: ({ progress: value }) => void progress.push(value),
      })
      expect(textOf(waited)).toBe('Waited 1 s.')
      // The last progress shares a read with the result on stdio, and SDK v1 may settle the call first.
      expect(progress[0]).toBe(0)

      await peer.client.subscribeResource({ uri: 'notes://all' })
      const saved = await peer.client.callTool({ name: 'add_note', arguments: {} })
      expect(textOf(saved)).toMatch(/^Saved note \d+: Groceries$/)
      expect(peer.elicited).toHaveLength(1)
      expect(peer.elicited[0]).toMatchObject({ message: 'Complete the note before it is saved' })
      await until(
        () => peer.notifications.some((n) => n.method === 'notifications/resources/updated'),
        'resources/updated',
      )
      expect(await peer.client.ping()).toEqual({})
    } finally {
      await close()
    }
  })

  it('sends logs after logging/setLevel, answers sampling and roots, hears list changes, and cancels', async () => {
    const peer = sdkV1Client()
    const close = await connect('legacy', peer)
    try {
      await peer.client.setLoggingLevel('info')
      expect(textOf(await peer.client.callTool({ name: 'log_three', arguments: {} }))).toBe('logged')
      const logs = () => peer.notifications.filter((n) => n.method === 'notifications/message')
      await until(() => logs().length === 2, 'two log messages')
      expect(logs().map((n) => (n.params as { data: string }).data)).toEqual(['two', 'three'])

      const asked = await peer.client.callTool({ name: 'ask_model', arguments: {} })
      expect(textOf(asked)).toBe('hi there / file:///work')

      // Subscribed updates and list changes arrive on the session's stream (GET on HTTP).
      await peer.client.subscribeResource({ uri: 'test://counter' })
      await peer.client.callTool({ name: 'touch', arguments: {} })
      await until(
        () =>
          peer.notifications.some((n) => n.method === 'notifications/resources/updated') &&
          peer.notifications.some((n) => n.method === 'notifications/tools/list_changed'),
        'resources/updated and tools/list_changed',
      )

      const before = Number(textOf(await peer.client.callTool({ name: 'aborted_count', arguments: {} })))
      const controller = new AbortController()
      // Cancelled once the handler runs (its first progress), so the handler itself sees the abort.
      const call = peer.client.callTool({ name: 'wait_for_cancel', arguments: {} }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort('user'),
      })
      await expect(call).rejects.toThrow()
      // The handler saw the abort: poll its counter until it moves, with a generous deadline.
      const deadline = Date.now() + 15_000
      let after = before
      while (after === before && Date.now() < deadline) {
        after = Number(textOf(await peer.client.callTool({ name: 'aborted_count', arguments: {} })))
        if (after === before) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(after).toBe(before + 1)
    } finally {
      await close()
    }
  })
})

describe('SDK v2 client on its default negotiation', () => {
  it('initializes, lists and calls the demo tools with progress and an elicitation', async () => {
    const client = new ClientV2(
      { name: 'sdk-v2-test', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    )
    const elicited: unknown[] = []
    client.setRequestHandler('elicitation/create', (request) => {
      elicited.push(request.params)
      return { action: 'accept', content: { title: 'From v2', body: 'text' } }
    })
    const transport = new HttpTransportV2(demoHttp.url)
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain('arithmetic')
      const sum = await client.callTool({ name: 'arithmetic', arguments: { op: 'multiply', a: 6, b: 7 } })
      expect(sum.structuredContent).toEqual({ result: 42 })
      const progress: number[] = []
      await client.callTool(
        { name: 'countdown', arguments: { seconds: 1 } },
        {
          onprogress: ({ progress: value }: { progress: number }) => void progress.push(value),
        },
      )
      expect(progress).toEqual([0, 1])
      const saved = await client.callTool({ name: 'add_note', arguments: {} })
      expect(textOf(saved)).toMatch(/Saved note \d+: From v2/)
      expect(elicited).toHaveLength(1)
    } finally {
      await transport.terminateSession()
      await client.close()
    }
  })
})
