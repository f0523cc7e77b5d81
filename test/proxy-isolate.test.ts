/**
 * `isolate: { per: 'principal' }`: each downstream principal (here a bearer token's subject) gets its own
 * upstream process (a toolwire stdio server reporting its pid), at most `maxProcesses` at once: the idlest is
 * stopped for a newcomer, a newcomer finding every process busy is refused, and a process left idle for
 * `idleTimeoutMs` is stopped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Client } from '../src/client/index.js'
import { defineProxy, type ProxyServer } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { namedUsersAuth } from './helpers/named-users.js'
import { testServer } from './helpers/paths.js'
import { textOf, until } from './helpers/wait.js'

const UPSTREAM = testServer('proxy-upstream.mjs')
const SECRET = 'proxy-isolate-test-secret-0123456789abcdef'

async function isolatedProxy(maxProcesses: number, idleTimeoutMs: number): Promise<ProxyServer> {
  return defineProxy({
    target: { command: process.execPath, args: [UPSTREAM], stderr: 'ignore' },
    isolate: { per: 'principal', maxProcesses, idleTimeoutMs },
    requestState: { secret: SECRET },
    security: {
      rateLimit: false,
      auth: namedUsersAuth('alice', 'bob', 'carol'),
    },
  })
}

describe('one upstream process per principal, at most two', () => {
  let proxy: ProxyServer
  let running: RunningServer
  const clients: Client[] = []
  const as = (user: string): Client => {
    const client = connect(
      { url: running.url, headers: { authorization: `Bearer ${user}` } },
      { warn: () => {} },
    )
    clients.push(client)
    return client
  }
  beforeAll(async () => {
    proxy = await isolatedProxy(2, 600_000)
    running = await serveNode(proxy, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    for (const client of clients) await client.close()
    await running?.close()
  })

  it('gives each principal its own process and keeps it', async () => {
    const alice = as('alice')
    const bob = as('bob')
    const first = textOf(await alice.callTool('pid', {}))
    const other = textOf(await bob.callTool('pid', {}))
    expect(first).toMatch(/^\d+$/)
    expect(other).toMatch(/^\d+$/)
    expect(other).not.toBe(first)
    expect(textOf(await alice.callTool('pid', {}))).toBe(first)
    expect(proxy.upstream.pool?.size).toBe(2)
  })

  it('stops the idlest process for a third principal past maxProcesses', async () => {
    const alice = as('alice')
    const bob = as('bob')
    const carol = as('carol')
    const alicePid = textOf(await alice.callTool('pid', {}))
    const bobPid = textOf(await bob.callTool('pid', {}))
    // Alice was used before Bob: her process is the idlest and goes.
    const carolPid = textOf(await carol.callTool('pid', {}))
    expect(proxy.upstream.pool?.size).toBe(2)
    expect([alicePid, bobPid]).not.toContain(carolPid)
    expect(textOf(await bob.callTool('pid', {}))).toBe(bobPid)
    const aliceAgain = textOf(await alice.callTool('pid', {}))
    expect(aliceAgain).not.toBe(alicePid)
  })

  it('refuses a third principal while both processes are busy', async () => {
    const busy = ['alice', 'bob'].map((user) => {
      const controller = new AbortController()
      let started = false
      const call = as(user)
        .callTool('wait', {}, { signal: controller.signal, onProgress: () => (started = true) })
        .catch(() => undefined)
      return { controller, call, started: () => started }
    })
    await until(() => busy.every((one) => one.started()), 'both calls to be running upstream')
    await expect(as('carol').callTool('pid', {})).rejects.toMatchObject({
      message: expect.stringMatching(/all 2 upstream processes are busy with other callers/),
    })
    for (const one of busy) one.controller.abort()
    await Promise.all(busy.map((one) => one.call))
    expect(textOf(await as('carol').callTool('pid', {}))).toMatch(/^\d+$/)
  })
})

describe('an idle per-principal process', () => {
  it('is stopped after idleTimeoutMs', async () => {
    const proxy = await isolatedProxy(4, 100)
    const running = await serveNode(proxy, { port: 0 })
    const client = connect(
      { url: running.url, headers: { authorization: 'Bearer alice' } },
      { warn: () => {} },
    )
    try {
      expect(textOf(await client.callTool('pid', {}))).toMatch(/^\d+$/)
      await until(() => proxy.upstream.pool?.size === 0, 'the idle process to be stopped')
    } finally {
      await client.close()
      await running.close()
    }
  })
})
