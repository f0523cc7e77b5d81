/**
 * `defineProxy` groups callers by the client capabilities they declare: an upstream whose tool list does not
 * depend on them (an SDK v1 server) is probed once per set and then serves everyone from its shared process;
 * one whose list does (server-everything) keeps a process per set, listing each caller what it lists a
 * client declaring the same. Those processes are bounded by `maxProcesses` (16 by default): a caller cycling
 * through more sets than that never holds more processes.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Client, connect } from '../src/client/index.js'
import { defineProxy, ISOLATE_DEFAULTS, type ProxyServer } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import type { ClientCapabilities } from '../src/wire/types.js'
import { EVERYTHING_SERVER, ROOT } from './helpers/paths.js'

const ASKING = join(ROOT, 'test', 'fixtures', 'sdk-v1-asking-server.mjs')
const SECRET = 'proxy-capability-groups-secret-0123456789'

async function served(args: string[]): Promise<{ proxy: ProxyServer; running: RunningServer }> {
  const proxy = await defineProxy({
    target: { command: process.execPath, args, stderr: 'ignore' },
    requestState: { secret: SECRET },
    security: { rateLimit: false },
    logger: { warn: () => {}, error: () => {} },
  })
  return { proxy, running: await serveNode(proxy, { port: 0 }) }
}

async function toolsOf(url: string, capabilities: ClientCapabilities): Promise<string[]> {
  const client: Client = connect({ url }, { capabilities, warn: () => {} })
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort()
  } finally {
    await client.close()
  }
}

/** 20 distinct sets of relayed capabilities: more than the default bound. */
const SETS: ClientCapabilities[] = []
for (const sampling of [undefined, {}, { context: {} }, { tools: {} }, { context: {}, tools: {} }]) {
  for (const elicitation of [undefined, { form: {} }, { url: {} }, { form: {}, url: {} }]) {
    SETS.push({ ...(sampling && { sampling }), ...(elicitation && { elicitation }) })
  }
}

describe('an upstream whose tools do not depend on the declared capabilities', () => {
  let up: Awaited<ReturnType<typeof served>>
  beforeAll(async () => (up = await served([ASKING])), 30_000)
  afterAll(() => up?.running.close())

  it('lists every caller the same tools from its one shared process', async () => {
    const everything = await toolsOf(up.running.url, { sampling: {}, elicitation: {}, roots: {} })
    expect(everything).toEqual(expect.arrayContaining(['ask_model', 'confirm', 'list_roots']))
    expect(await toolsOf(up.running.url, {})).toEqual(everything)
    expect(await toolsOf(up.running.url, { roots: {} })).toEqual(everything)
    // Each set was probed by a process of its own, stopped once its list was the shared one's.
    expect(up.proxy.upstream.pool?.size).toBe(0)
  }, 60_000)
})

describe('server-everything, whose tools depend on them', () => {
  let up: Awaited<ReturnType<typeof served>>
  beforeAll(async () => (up = await served([EVERYTHING_SERVER, 'stdio'])), 30_000)
  afterAll(() => up?.running.close())

  it('keeps a process per declared set, listing each caller its own tools', async () => {
    const full = await toolsOf(up.running.url, {
      sampling: {},
      elicitation: { form: {}, url: {} },
      roots: {},
    })
    expect(full).toEqual(expect.arrayContaining(['trigger-sampling-request', 'get-roots-list']))
    expect(up.proxy.upstream.pool?.size).toBe(0)
    const none = await toolsOf(up.running.url, {})
    expect(none).not.toContain('trigger-sampling-request')
    expect(none).not.toContain('get-roots-list')
    expect(none).toContain('echo')
    expect(up.proxy.upstream.pool?.size).toBe(1)
  }, 60_000)

  it(`holds at most ${ISOLATE_DEFAULTS.maxProcesses} such processes, however many sets callers declare`, async () => {
    expect(SETS.length).toBeGreaterThan(ISOLATE_DEFAULTS.maxProcesses)
    for (const declared of SETS) {
      const names = await toolsOf(up.running.url, declared)
      expect(names.includes('trigger-sampling-request')).toBe(declared.sampling !== undefined)
      expect(names).not.toContain('get-roots-list')
      expect(up.proxy.upstream.pool?.size).toBeLessThanOrEqual(ISOLATE_DEFAULTS.maxProcesses)
    }
    expect(up.proxy.upstream.pool?.size).toBe(ISOLATE_DEFAULTS.maxProcesses)
  }, 180_000)
})
