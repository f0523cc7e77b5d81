/**
 * The tuned request path keeps its behaviour: signals made lazily still fire on cancellation (stdio
 * `notifications/cancelled`, HTTP disconnect), and tools/call treats sync and async handlers and
 * validators alike.
 */
import { request as httpRequest } from 'node:http'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { defineServer, defineTool, jsonSchema, ToolError, type Server } from '../src/index.js'
import { LazyAbort } from '../src/wire/lazy-abort.js'
import { serveNode } from '../src/transports/http/node.js'
import { serveStdio } from '../src/transports/stdio/index.js'
import { errorOf, meta, post, resultOf, standardHeaders } from './helpers/http.js'
import { createFetchHandler } from '../src/index.js'
import { assertServerMessage } from './helpers/spec-schema.js'
import { until } from './helpers/wait.js'

describe('LazyAbort', () => {
  it('answers aborted without making a signal, and a signal read later is already aborted', () => {
    const lazy = new LazyAbort()
    expect(lazy.aborted).toBe(false)
    lazy.abort('gone')
    expect(lazy.aborted).toBe(true)
    expect(lazy.signal.aborted).toBe(true)
    expect(lazy.signal.reason).toBe('gone')
  })

  it('fires a signal made before the abort, once', () => {
    const lazy = new LazyAbort()
    let fired = 0
    lazy.signal.addEventListener('abort', () => fired++)
    lazy.abort()
    lazy.abort()
    expect(fired).toBe(1)
    expect(lazy.signal.reason).toBeInstanceOf(DOMException)
  })
})

/** A tool that resolves only when its signal aborts, and records that it started and saw the abort. */
function waitingServer(seen: { started?: boolean; aborted: boolean }): Server {
  const wait = defineTool({
    name: 'wait',
    handler: (_args, ctx) =>
      new Promise<string>((resolve) => {
        seen.started = true
        ctx.signal.addEventListener('abort', () => {
          seen.aborted = true
          resolve('stopped')
        })
      }),
  })
  return defineServer({ name: 'wait', version: '1.0.0', tools: [wait] })
}

describe('cancellation with lazily made signals', () => {
  it('stdio: notifications/cancelled aborts the handler and nothing is answered', async () => {
    const seen = { started: false, aborted: false }
    const input = new PassThrough()
    const output = new PassThrough()
    const lines: string[] = []
    output.on('data', (chunk: Buffer) => lines.push(chunk.toString()))
    const connection = serveStdio(waitingServer(seen), { input, output })
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait', _meta: meta() } })}\n`,
    )
    await until(() => seen.started)
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } })}\n`,
    )
    await until(() => seen.aborted)
    await connection.close()
    expect(lines.join('')).toBe('')
  })

  it('HTTP: a client that disconnects aborts the handler', async () => {
    const seen = { started: false, aborted: false }
    const running = await serveNode(waitingServer(seen), { port: 0 })
    try {
      const params = { name: 'wait' }
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { ...params, _meta: meta() },
      })
      const req = httpRequest(running.url, { method: 'POST', headers: standardHeaders('tools/call', params) })
      req.on('error', () => undefined)
      req.end(body)
      await until(() => seen.started)
      req.destroy()
      await until(() => seen.aborted)
    } finally {
      await running.close()
    }
  })
})

describe('tools/call with sync and async steps', () => {
  const asyncZod = z.object({ n: z.number() }).refine(async (value) => value.n >= 0, 'n must be >= 0')
  const tools = [
    defineTool({
      name: 'sync_throw',
      handler: () => {
        throw new ToolError('sync failure')
      },
    }),
    defineTool({
      name: 'async_reject',
      handler: async () => {
        throw new ToolError('async failure')
      },
    }),
    defineTool({
      name: 'async_value',
      outputSchema: z.object({ twice: z.number() }),
      inputSchema: z.object({ n: z.number() }),
      handler: async ({ n }) => ({ twice: 2 * n }),
    }),
    defineTool({ name: 'async_validator', inputSchema: asyncZod, handler: ({ n }) => `n=${n}` }),
    defineTool({
      name: 'bad_output',
      outputSchema: jsonSchema<{ ok: boolean }>({
        type: 'object',
        properties: { ok: { type: 'boolean' } },
        required: ['ok'],
      }),
      handler: () => ({ ok: 'yes' }) as unknown as { ok: boolean },
    }),
  ]
  const wrapped: string[] = []
  const fetcher = createFetchHandler(
    defineServer({
      name: 'steps',
      version: '1.0.0',
      tools,
      logger: { error: () => undefined, warn: () => undefined },
      wrapToolHandler: async (tool, _ctx, run) => {
        wrapped.push(tool.name)
        return run()
      },
    }),
  )
  const call = (name: string, args?: Record<string, unknown>) =>
    post(fetcher, 'tools/call', args === undefined ? { name } : { name, arguments: args })

  it('turns sync throws and async rejections into isError results', async () => {
    for (const [name, text] of [
      ['sync_throw', 'sync failure'],
      ['async_reject', 'async failure'],
    ]) {
      const result = resultOf(await call(name as string))
      expect(result).toMatchObject({
        resultType: 'complete',
        isError: true,
        content: [{ type: 'text', text }],
      })
    }
  })

  it('validates with async Standard Schema validators and awaits async handlers', async () => {
    expect(resultOf(await call('async_value', { n: 4 }))).toMatchObject({
      structuredContent: { twice: 8 },
      content: [{ type: 'text', text: '{"twice":8}' }],
    })
    expect(resultOf(await call('async_validator', { n: 3 }))).toMatchObject({
      content: [{ type: 'text', text: 'n=3' }],
    })
    const refused = resultOf(await call('async_validator', { n: -1 }))
    expect(refused.isError).toBe(true)
    expect(JSON.stringify(refused.content)).toMatch(/n must be >= 0/)
  })

  it('answers an internal error when output breaks outputSchema, and runs the handler wrapper', async () => {
    const answer = await call('bad_output', {})
    expect(answer.status).toBe(200)
    expect(errorOf(answer).code).toBe(-32603)
    expect(wrapped).toContain('bad_output')
    for (const message of answer.messages) assertServerMessage(message)
  })
})

describe('exchange functions handed out by the transports', () => {
  it('work when destructured from the exchange (HTTP header and notify, stdio notify)', async () => {
    const probe = defineTool({
      name: 'probe',
      handler: (_args, ctx) => {
        const { header, notify } = ctx.exchange
        notify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } })
        return header?.('mcp-method') ?? 'no headers'
      },
    })
    const server = defineServer({ name: 'probe', version: '1.0.0', tools: [probe] })
    const answer = await post(createFetchHandler(server), 'tools/call', { name: 'probe' })
    expect(answer.contentType).toMatch(/text\/event-stream/)
    expect(answer.messages[0]).toMatchObject({ method: 'notifications/message' })
    expect(resultOf(answer).content).toEqual([{ type: 'text', text: 'tools/call' }])

    const input = new PassThrough()
    const output = new PassThrough()
    const lines: string[] = []
    output.on('data', (chunk: Buffer) => lines.push(chunk.toString()))
    const connection = serveStdio(server, { input, output })
    input.end(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'probe', _meta: meta() } })}\n`,
    )
    await connection.closed
    const messages = lines
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(messages[0]).toMatchObject({ method: 'notifications/message' })
    expect(messages[1]).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'no headers' }] } })
    for (const message of messages) assertServerMessage(message, 'tools/call')
  })
})
