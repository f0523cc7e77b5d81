/**
 * `defineGateway` with real members: @modelcontextprotocol/server-everything and a toolwire server, both
 * over stdio, each under a namespace and filtered by globs; the official SDK v2 client and toolwire's client
 * downstream. Collisions are refused when the gateway is defined.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { defineGateway, type GatewayServer, globMatcher } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { EVERYTHING_SERVER as EVERYTHING, testServer } from './helpers/paths.js'
import { textOf } from './helpers/wait.js'

const UPSTREAM = testServer('proxy-upstream.mjs')
const everything = { command: process.execPath, args: [EVERYTHING], stderr: 'ignore' } as const
const toolwireUpstream = { command: process.execPath, args: [UPSTREAM], stderr: 'ignore' } as const

describe('globMatcher', () => {
  it('matches * and ? and nothing else specially', () => {
    const match = globMatcher(['get-*', 'e?ho', 'a.b'])
    expect(['get-sum', 'echo', 'a.b'].every(match)).toBe(true)
    expect(['sum', 'ecco', 'axb', 'get'].some(match)).toBe(false)
  })
})

describe('a gateway of two members', () => {
  let gateway: GatewayServer
  let running: RunningServer
  beforeAll(async () => {
    gateway = await defineGateway({
      name: 'gw',
      version: '1.0.0',
      members: {
        tw: { target: toolwireUpstream, include: ['sum', 'fail', 'pid'] },
        ev: { target: everything, exclude: ['*long-running*', 'simulate-*', 'get-env'] },
      },
    })
    running = await serveNode(gateway, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await running?.close()
  })

  it('offers each member’s tools under its namespace, filtered by the globs', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(['tw_sum', 'tw_fail', 'tw_pid', 'ev_get-sum', 'ev_echo']))
      expect(names).not.toContain('tw_crash')
      expect(names).not.toContain('ev_trigger-long-running-operation')
      expect(names).not.toContain('ev_get-env')
      expect(names.every((name) => name.startsWith('tw_') || name.startsWith('ev_'))).toBe(true)
      const prompts = (await client.listPrompts()).map((prompt) => prompt.name)
      expect(prompts).toContain('ev_simple-prompt')
    } finally {
      await client.close()
    }
  })

  it('calls each member through the SDK v2 client', async () => {
    const client = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    await client.connect(new HttpTransportV2(new URL(running.url)))
    try {
      const sum = await client.callTool({ name: 'tw_sum', arguments: { a: 2, b: 5 } })
      expect(sum.structuredContent).toEqual({ sum: 7 })
      expect(textOf(await client.callTool({ name: 'ev_get-sum', arguments: { a: 1, b: 1 } }))).toContain('2')
      const failed = await client.callTool({ name: 'tw_fail', arguments: {} })
      expect(failed.isError).toBe(true)
    } finally {
      await client.close()
    }
  })

  it('serves one member alone, filtered alike, over the same upstream process', async () => {
    const member = await gateway.member('tw')
    const alone = await serveNode(member, { port: 0 })
    const client = connect({ url: alone.url }, { warn: () => {} })
    const merged = connect({ url: running.url }, { warn: () => {} })
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name)
      expect(names).toContain('pid')
      expect(names).toContain('sum')
      expect(names).not.toContain('crash') // the member's globs apply here too
      expect(textOf(await client.callTool('pid', {}))).toBe(textOf(await merged.callTool('tw_pid', {})))
    } finally {
      await client.close()
      await merged.close()
      await alone.close()
    }
  })
})

describe('gateway definition', () => {
  it('refuses two members that offer the same name', async () => {
    await expect(
      defineGateway({
        name: 'clash',
        version: '1.0.0',
        separator: '-',
        members: {
          x: { target: everything, include: ['get-sum'] },
          'x-get': { target: toolwireUpstream, include: ['sum'] },
        },
      }),
    ).rejects.toThrow(/member x-get collides with member x: both offer the tool "x-get-sum"/)
  })

  it('refuses bad namespaces and an unreachable member, naming it', async () => {
    await expect(
      defineGateway({ name: 'bad', version: '1.0.0', members: { a_b: { target: everything } } }),
    ).rejects.toThrow(/gateway member "a_b"/)
    await expect(
      defineGateway({
        name: 'gone',
        version: '1.0.0',
        members: { ok: { target: toolwireUpstream }, gone: { target: { url: 'http://127.0.0.1:1/mcp' } } },
      }),
    ).rejects.toThrow(/member gone: Upstream server unavailable/)
  })
})
