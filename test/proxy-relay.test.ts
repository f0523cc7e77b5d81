/**
 * Completions and resource subscriptions through the proxy. Completions: @modelcontextprotocol/server-everything
 * (2025-era, stdio) behind the proxy, asked by the SDK v1 client and toolwire's client. Subscriptions: a
 * toolwire server (2026-07-28, HTTP) whose resources change; toolwire's client downstream on 2026-07-28 (a
 * listen stream) and pinned to 2025-11-25 (`resources/subscribe` on its session) receives the updates; a
 * resource added upstream is followed once the proxy re-lists; past `maxResourceSubscriptions` a resource is
 * not followed and the proxy says so.
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { defineResource } from '../src/features/resources/define.js'
import { defineServer, type Server } from '../src/server.js'
import { defineProxy, type ProxyServer } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { EVERYTHING_SERVER as EVERYTHING } from './helpers/paths.js'

/** Waits for `check` to hold, polling, with a generous deadline (no fixed sleeps). */
async function until(check: () => boolean, what: string, deadlineMs = 15_000): Promise<void> {
  const end = Date.now() + deadlineMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const SECRET = 'proxy-relay-test-secret-0123456789abcdef'

describe('completions through a proxy of server-everything', () => {
  let proxy: ProxyServer
  let running: RunningServer
  beforeAll(async () => {
    proxy = await defineProxy({
      target: { command: process.execPath, args: [EVERYTHING], stderr: 'ignore' },
      requestState: { secret: SECRET },
    })
    running = await serveNode(proxy, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await running?.close()
  })

  it('completes prompt arguments, with the arguments given so far, for the SDK v1 client', async () => {
    const client = new SdkClient({ name: 'sdk-v1-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)))
    try {
      const departments = await client.complete({
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'department', value: 'S' },
      })
      expect(departments.completion.values).toEqual(['Sales', 'Support'])
      const names = await client.complete({
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'name', value: '' },
        context: { arguments: { department: 'Marketing' } },
      })
      expect(names.completion.values).toEqual(['Grace', 'Henry', 'Iris'])
    } finally {
      await client.close()
    }
  })

  it('completes resource template variables for toolwire’s client', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const templates = await client.listResourceTemplates()
      const text = templates.find((t) => t.uriTemplate.includes('dynamic/text'))
      expect(text).toBeDefined()
      const answer = await client.request('completion/complete', {
        ref: { type: 'ref/resource', uri: text!.uriTemplate },
        argument: { name: 'resourceId', value: '7' },
      })
      expect(answer.completion).toMatchObject({ values: ['7'] })
      const none = await client.request('completion/complete', {
        ref: { type: 'ref/resource', uri: text!.uriTemplate },
        argument: { name: 'resourceId', value: 'x' },
      })
      expect(none.completion).toMatchObject({ values: [] })
    } finally {
      await client.close()
    }
  })
})

function notes(count: number): Server {
  return defineServer({
    name: 'notes',
    version: '1.0.0',
    resources: Array.from({ length: count }, (_, index) =>
      defineResource({ uri: `memo://note/${index + 1}`, name: `note ${index + 1}`, read: () => 'text' }),
    ),
  })
}

describe('resource subscriptions through a proxy', () => {
  let upstream: Server
  let upstreamHttp: RunningServer
  let proxy: ProxyServer
  let running: RunningServer
  const warnings: string[] = []
  beforeAll(async () => {
    // One more than the default bound: the last one is listed but not followed.
    upstream = notes(65)
    upstreamHttp = await serveNode(upstream, { port: 0 })
    proxy = await defineProxy({
      target: { url: upstreamHttp.url },
      requestState: { secret: SECRET },
      logger: { warn: (message) => void warnings.push(message), error: () => {} },
    })
    running = await serveNode(proxy, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await running?.close()
    await upstreamHttp?.close()
  })

  for (const era of [
    { era: '2026-07-28', options: {} },
    { era: '2025-11-25', options: { protocolVersion: '2025-11-25' } },
  ] as const) {
    it(`passes an upstream resource update to a ${era.era} subscriber of that URI only`, async () => {
      const client = connect({ url: running.url }, { warn: () => {}, ...era.options })
      const updated: string[] = []
      try {
        const subscription = await client.subscribe(
          { resourceSubscriptions: ['memo://note/2'] },
          {
            onNotification: (notification) => {
              if (notification.method === 'notifications/resources/updated')
                updated.push(String(notification.params?.uri))
            },
          },
        )
        expect(subscription.acknowledged.resourceSubscriptions).toEqual(['memo://note/2'])
        // Updates arrive in order on one stream: once note 2's has arrived, note 1's would have too.
        upstream.resourceUpdated('memo://note/1')
        upstream.resourceUpdated('memo://note/2')
        await until(() => updated.length > 0, 'the update to reach the subscriber')
        expect(updated).toEqual(['memo://note/2'])
        await subscription.close()
      } finally {
        await client.close()
      }
    })
  }

  it('follows at most maxResourceSubscriptions (64) listed resources, and warns', async () => {
    expect(warnings.join('\n')).toMatch(/lists 65 resources; only the first 64 are followed/)
    const client = connect({ url: running.url }, { warn: () => {} })
    const updated: string[] = []
    try {
      const subscription = await client.subscribe(
        { resourceSubscriptions: ['memo://note/65', 'memo://note/64'] },
        {
          onNotification: (notification) => {
            if (notification.method === 'notifications/resources/updated')
              updated.push(String(notification.params?.uri))
          },
        },
      )
      upstream.resourceUpdated('memo://note/65')
      upstream.resourceUpdated('memo://note/64')
      await until(() => updated.length > 0, 'the followed update')
      expect(updated).toEqual(['memo://note/64'])
      await subscription.close()
    } finally {
      await client.close()
    }
  })

  it('follows a resource the upstream adds, once the proxy has listed it again', async () => {
    const upstream = notes(1)
    const upstreamHttp = await serveNode(upstream, { port: 0 })
    const proxy = await defineProxy({ target: { url: upstreamHttp.url }, requestState: { secret: SECRET } })
    const running = await serveNode(proxy, { port: 0 })
    const client = connect({ url: running.url }, { warn: () => {} })
    const updated: string[] = []
    try {
      const subscription = await client.subscribe(
        { resourcesListChanged: true, resourceSubscriptions: ['memo://fresh'] },
        {
          onNotification: (notification) => {
            if (notification.method === 'notifications/resources/updated')
              updated.push(String(notification.params?.uri))
          },
        },
      )
      upstream.resources.add(defineResource({ uri: 'memo://fresh', name: 'fresh', read: () => 'new' }))
      await until(() => proxy.resources.get('memo://fresh') !== undefined, 'the proxy to list it')
      // The upstream stream is reopened with the new URI just after the listing: announce until it is.
      const end = Date.now() + 15_000
      while (updated.length === 0 && Date.now() < end) {
        upstream.resourceUpdated('memo://fresh')
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(updated[0]).toBe('memo://fresh')
      await subscription.close()
    } finally {
      await client.close()
      await running.close()
      await upstreamHttp.close()
    }
  })
})
