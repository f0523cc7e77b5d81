/**
 * 2025-era peers get the shapes their schema allows from a server whose tools use 2026-07-28 freedoms: the
 * official SDK v1 client (which checks `tools/list` against the 2025-11-25 schema and refuses the whole list
 * for one tool outside it) lists and calls tools with array and string output schemas, and a tool that runs
 * only as a task, with and without the tasks capability, over Streamable HTTP and stdio. Its arguments may
 * carry `"__proto__"` keys, sent by the SDK as JSON text. Toolwire's own client still sees the 2026 shapes.
 */
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { createEraShapesServer } from './fixtures/era-shapes-server.js'
import { ROOT } from './helpers/paths.js'
import { errorOf, post } from './helpers/http.js'

const FIXTURE = join(ROOT, 'test', 'fixtures', 'era-shapes-server.ts')

let running: RunningServer
beforeAll(async () => {
  running = await serveNode(createEraShapesServer(), { host: '127.0.0.1', port: 0 })
})
afterAll(() => running.close())

const textOf = (result: unknown): string =>
  (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n')

type Connect = (client: Client) => Promise<void>
const transports: [string, Connect][] = [
  ['Streamable HTTP', (client) => client.connect(new StreamableHTTPClientTransport(new URL(running.url)))],
  [
    'stdio',
    (client) =>
      client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ['--import', 'tsx', FIXTURE],
          stderr: 'ignore',
        }),
      ),
  ],
]
const capabilities: [string, Record<string, unknown>][] = [
  ['without tasks', {}],
  ['with tasks', { tasks: { list: {}, cancel: {} } }],
]

describe.each(transports)('SDK v1 client over %s', (_label, open) => {
  it.each(capabilities)('lists every tool and calls each one (%s)', async (_which, declared) => {
    const client = new Client({ name: 'sdk-v1-shapes', version: '1.0.0' }, { capabilities: declared })
    await open(client)
    try {
      expect(client.getServerVersion()?.name).toBe('era-shapes')
      const { tools } = await client.listTools()
      const byName = new Map(tools.map((tool) => [tool.name, tool]))
      expect([...byName.keys()].sort()).toEqual(['inspect', 'long_job', 'motto', 'sum', 'tags'])
      // Non-object output schemas are left out; an object one stays.
      expect(byName.get('tags')).not.toHaveProperty('outputSchema')
      expect(byName.get('motto')).not.toHaveProperty('outputSchema')
      expect(byName.get('sum')?.outputSchema).toMatchObject({ type: 'object', required: ['sum'] })
      // Runs in the call for these peers, so it is listed as an ordinary tool.
      expect(byName.get('long_job')).not.toHaveProperty('execution')

      const tags = await client.callTool({ name: 'tags', arguments: {} })
      expect(tags).not.toHaveProperty('structuredContent')
      expect(JSON.parse(textOf(tags))).toEqual(['red', 'green'])
      const motto = await client.callTool({ name: 'motto', arguments: {} })
      expect(motto).not.toHaveProperty('structuredContent')
      expect(JSON.parse(textOf(motto))).toBe('carpe diem')
      const sum = await client.callTool({ name: 'sum', arguments: { a: 2, b: 3 } })
      expect(sum.structuredContent).toEqual({ sum: 5 })

      const job = await client.callTool({ name: 'long_job', arguments: {} })
      expect(job.isError).toBeFalsy()
      expect(textOf(job)).toBe('job done (task none)')

      // JSON.parse makes "__proto__" an own key; the SDK writes it into the request's JSON text.
      const args = JSON.parse(
        '{"doc":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}}',
      )
      const inspected = await client.callTool({ name: 'inspect', arguments: args as Record<string, unknown> })
      expect(inspected.isError).toBeFalsy()
      expect(JSON.parse(textOf(inspected))).toEqual({
        args: { doc: { ['__proto__']: { polluted: 1 }, constructor: { prototype: { polluted: 2 } } } },
        keys: ['__proto__', 'constructor'],
        nullPrototype: true,
        polluted: null,
      })
    } finally {
      await client.close()
    }
  })
})

describe('the 2026-07-28 path keeps its shapes', () => {
  it("toolwire's client sees the array and string output schemas and structured values", async () => {
    const client = connect({ url: running.url })
    try {
      const { tools } = await client.listTools()
      const tags = tools.find((tool) => tool.name === 'tags')
      expect(tags?.outputSchema).toEqual({ type: 'array', items: { type: 'string' } })
      expect(tools.find((tool) => tool.name === 'motto')?.outputSchema).toEqual({ type: 'string' })
      expect((await client.callTool('tags')).structuredContent).toEqual(['red', 'green'])
      expect((await client.callTool('motto')).structuredContent).toBe('carpe diem')
    } finally {
      await client.close()
    }
  })

  it('a client without the tasks extension still gets -32021 for the task-only tool', async () => {
    const answer = await post(fetch, 'tools/call', { name: 'long_job', arguments: {} }, {}, running.url)
    expect(errorOf(answer).code).toBe(-32021)
  })
})
