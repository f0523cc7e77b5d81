/**
 * The proxy's change stream to an HTTP upstream survives the upstream going away: a toolwire server
 * (2026-07-28) is stopped and started again on the same port with other tools; the proxy reopens its stream,
 * lists again, and a downstream listener (toolwire's client) sees the new tools and later changes. An upstream
 * that stays away is given up after `maxListenRetries` attempts in a row, with a warning.
 */
import { describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { defineTool } from '../src/features/tools/define.js'
import { defineServer, type Server } from '../src/server.js'
import { defineProxy } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { until } from './helpers/wait.js'

/** Waits for `check` to hold, polling, with a generous deadline (no fixed sleeps). */

const SECRET = 'proxy-reopen-test-secret-0123456789abcdef'

function upstreamWith(...names: string[]): Server {
  return defineServer({
    name: 'restarting',
    version: '1.0.0',
    tools: names.map((name) => defineTool({ name, handler: () => name })),
  })
}

describe('an HTTP upstream that restarts', () => {
  it('gets its change stream reopened and its lists refreshed', async () => {
    let upstreamHttp: RunningServer = await serveNode(upstreamWith('before'), { port: 0 })
    const port = Number(new URL(upstreamHttp.url).port)
    const warnings: string[] = []
    const proxy = await defineProxy({
      target: { url: upstreamHttp.url },
      restart: { initialDelayMs: 20, maxDelayMs: 200 },
      maxListenRetries: 1_000,
      requestState: { secret: SECRET },
      logger: { warn: (message) => void warnings.push(message), error: () => {} },
    })
    const running = await serveNode(proxy, { port: 0 })
    const client = connect({ url: running.url }, { warn: () => {} })
    let latest: string[] = []
    try {
      const subscription = await client.subscribe(
        { toolsListChanged: true },
        { onToolsChanged: (tools) => (latest = tools.map((tool) => tool.name)) },
      )
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['before'])
      await upstreamHttp.close()
      const restarted = upstreamWith('after')
      upstreamHttp = await serveNode(restarted, { port })
      await until(() => latest.includes('after'), 'the downstream list to show the restarted upstream')
      expect(latest).not.toContain('before')
      // The reopened stream is live: a later change upstream still reaches the listener.
      restarted.tools.add(defineTool({ name: 'later', handler: () => 'later' }))
      await until(() => latest.includes('later'), 'a change after the reopen')
      await subscription.close()
    } finally {
      await client.close()
      await running.close()
      await upstreamHttp.close()
    }
  }, 60_000)

  it('gives up after maxListenRetries failed attempts in a row, and says so', async () => {
    const upstreamHttp = await serveNode(upstreamWith('only'), { port: 0 })
    const warnings: string[] = []
    const proxy = await defineProxy({
      target: { url: upstreamHttp.url },
      restart: { initialDelayMs: 10, maxDelayMs: 40 },
      maxListenRetries: 3,
      requestState: { secret: SECRET },
      logger: { warn: (message) => void warnings.push(message), error: () => {} },
    })
    try {
      await upstreamHttp.close()
      await until(
        () => warnings.some((message) => /gave up after 3 attempts in a row/.test(message)),
        'the proxy to give up reopening',
      )
      expect(warnings.filter((message) => /gave up/.test(message))).toHaveLength(1)
    } finally {
      await proxy.close()
    }
  }, 60_000)
})
