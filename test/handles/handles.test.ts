import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { defineHandles, defineServer, defineTool, jsonSchema } from '../../src/index.js'
import { createDemoServer } from '../../src/demo/server.js'
import { MemoryHandleStore } from '../../src/handles/memory.js'
import { post, resultOf } from '../helpers/http.js'
import { as, byHeader, callTool, live, type Live, textOf } from '../helpers/live.js'

const running: Live[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

const structured = (result: Record<string, unknown>): Record<string, unknown> =>
  result.structuredContent as Record<string, unknown>

describe('state handles on the basket demo', () => {
  it('states the retention policy in the creating tool description', () => {
    const create = createDemoServer()
      .tools.tools()
      .find((tool) => tool.name === 'basket_create')
    expect(create?.description).toBe(
      'Creates an empty shopping basket. Returns a basket handle that expires after 30 minutes without use; each use keeps it alive. Only the caller that created it can use it.',
    )
  })

  it('creates opaque UUIDv4 handles bound to their creator', async () => {
    const mcp = await live(createDemoServer({ security: { auth: byHeader } }))
    running.push(mcp)
    const created = structured(resultOf(await callTool(mcp, 'basket_create', {}, as('ann'))))
    const id = created.basket_id as string
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    await callTool(mcp, 'basket_add', { basket_id: id, item: 'tea', quantity: 2 }, as('ann'))
    const added = structured(
      resultOf(await callTool(mcp, 'basket_add', { basket_id: id, item: 'tea' }, as('ann'))),
    )
    expect(added).toEqual({ basket_id: id, lines: [{ item: 'tea', quantity: 3 }], items: 3 })

    const foreign = resultOf(await callTool(mcp, 'basket_view', { basket_id: id }, as('bob')))
    const unknown = resultOf(
      await callTool(mcp, 'basket_view', { basket_id: crypto.randomUUID() }, as('bob')),
    )
    expect(foreign.isError).toBe(true)
    expect(textOf(foreign)).toBe(textOf(unknown))
    expect(textOf(foreign)).toBe(
      'Unknown or expired basket handle: baskets expire after 30 minutes without use. Call basket_create to get a new one.',
    )
    const stolen = resultOf(await callTool(mcp, 'basket_add', { basket_id: id, item: 'coffee' }, as('bob')))
    expect(stolen.isError).toBe(true)
    expect(structured(resultOf(await callTool(mcp, 'basket_view', { basket_id: id }, as('ann')))).items).toBe(
      3,
    )

    const garbage = resultOf(
      await callTool(mcp, 'basket_view', { basket_id: "'; DROP TABLE x; --" }, as('ann')),
    )
    expect(textOf(garbage)).toBe('That is not a basket handle. Call basket_create to get one.')

    const order = resultOf(await callTool(mcp, 'basket_checkout', { basket_id: id }, as('ann')))
    expect(textOf(order)).toBe('Order placed:\n3 × tea')
    expect(resultOf(await callTool(mcp, 'basket_view', { basket_id: id }, as('ann'))).isError).toBe(true)
  })

  it('expires idle handles, refreshes them on use, and tells the model how to recover', async () => {
    // The store's clock is the test's: time passes exactly as much as the test says, however busy the machine.
    let now = 1_000_000
    const store = new MemoryHandleStore({ now: () => now })
    const notes = defineHandles<string[]>({
      kind: 'notebook',
      createTool: 'notebook_open',
      ttlMs: 600,
      store,
    })
    const open = defineTool({
      name: 'notebook_open',
      description: notes.describe('Opens a notebook.'),
      handler: async (_args, ctx) => notes.create(ctx, []),
    })
    const read = defineTool({
      name: 'notebook_read',
      inputSchema: jsonSchema<{ id: string }>({
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      }),
      handler: async ({ id }, ctx) => (await notes.get(ctx, id)).length.toString(),
    })
    const mcp = await live(defineServer({ name: 'n', version: '1', tools: [open, read] }))
    running.push(mcp)
    const id = textOf(resultOf(await callTool(mcp, 'notebook_open')))
    for (let i = 0; i < 3; i++) {
      now += 500 // within the 600 ms, and each use starts the time again
      expect(textOf(resultOf(await callTool(mcp, 'notebook_read', { id })))).toBe('0')
    }
    now += 601
    const expired = resultOf(await callTool(mcp, 'notebook_read', { id }))
    expect(expired.isError).toBe(true)
    expect(textOf(expired)).toBe(
      'Unknown or expired notebook handle: notebooks expire after 600 ms without use. Call notebook_open to get a new one.',
    )
    await notes.store.close()
  })
})

describe('SQLite-backed handles across a real restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-restart-'))
  const children: ChildProcess[] = []
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  async function startDemo(): Promise<{ child: ChildProcess; url: string }> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'demo', '--http', '127.0.0.1:0'],
      {
        env: { ...process.env, TOOLWIRE_STATE_DB: join(dir, 'state.db') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    children.push(child)
    let output = ''
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`demo did not start: ${output}`)), 15_000)
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        const match = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(output)
        if (match) {
          clearTimeout(timer)
          resolve(match[0])
        }
      })
      child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()))
      child.on('exit', () => reject(new Error(`demo exited: ${output}`)))
    })
    return { child, url }
  }

  const viaFetch = (request: Request): Promise<Response> => fetch(request)
  const call = (url: string, name: string, args: Record<string, unknown>) =>
    post(viaFetch, 'tools/call', { name, arguments: args }, {}, url).then(resultOf)

  it('loses nothing when the server is killed and started again', async () => {
    const first = await startDemo()
    const id = structured(await call(first.url, 'basket_create', {})).basket_id as string
    await call(first.url, 'basket_add', { basket_id: id, item: 'bread', quantity: 2 })
    await call(first.url, 'basket_add', { basket_id: id, item: 'jam' })
    const exited = new Promise((resolve) => first.child.once('exit', resolve))
    first.child.kill('SIGKILL')
    await exited

    const second = await startDemo()
    const view = structured(await call(second.url, 'basket_view', { basket_id: id }))
    expect(view).toEqual({
      basket_id: id,
      lines: [
        { item: 'bread', quantity: 2 },
        { item: 'jam', quantity: 1 },
      ],
      items: 3,
    })
    second.child.kill('SIGTERM')
  }, 40_000)
})
