/** tools/call: arguments, results of every content type, structured output, errors, progress and logs. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createFetchHandler,
  defineServer,
  defineTool,
  jsonSchema,
  toolResult,
  ToolError,
} from '../src/index.js'
import { connect } from '../src/client/index.js'
import { errorOf, meta, post, resultOf } from './helpers/http.js'

const logs: string[] = []
const server = defineServer({
  name: 'calls',
  version: '1',
  logger: {
    error: (m, details) => logs.push(`${m} ${JSON.stringify(details ?? {})}`),
    warn: (m) => logs.push(m),
  },
  tools: [
    defineTool({
      name: 'add',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
      handler: ({ a, b }) => ({ sum: a + b }),
    }),
    defineTool({
      name: 'list_users',
      outputSchema: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
      handler: () => [{ id: '1' }, { id: '2' }],
    }),
    defineTool({
      name: 'liar',
      outputSchema: jsonSchema<{ n: number }>({
        type: 'object',
        properties: { n: { type: 'number' } },
        required: ['n'],
      }),
      handler: () => ({ n: 'not a number' }) as unknown as { n: number },
    }),
    defineTool({
      name: 'both',
      outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      handler: () =>
        toolResult({ content: [{ type: 'text', text: 'custom text' }], structuredContent: { ok: true } }),
    }),
    defineTool({
      name: 'link',
      handler: () => [
        { type: 'resource_link' as const, uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
        {
          type: 'text' as const,
          text: 'annotated',
          annotations: { audience: ['user' as const], priority: 0.5 },
        },
      ],
    }),
    defineTool({ name: 'object_sugar', handler: () => ({ city: 'Paris' }) }),
    defineTool({ name: 'nothing', handler: () => undefined }),
    defineTool({ name: 'broken_block', handler: () => [{ type: 'image', data: 'x' }] as never }),
    defineTool({
      name: 'author_error',
      handler: () => {
        throw new Error('City not found: Atlantis')
      },
    }),
    defineTool({
      name: 'bug',
      handler: () => {
        const value = undefined as unknown as { x: { y: number } }
        return String(value.x.y)
      },
    }),
    defineTool({
      name: 'deliberate',
      handler: () => {
        throw new ToolError('Out of stock: try another size')
      },
    }),
    defineTool({
      name: 'chatty',
      handler: async (_args, ctx) => {
        ctx.progress(1, 2, 'half')
        ctx.progress(1, 2, 'not increasing: dropped')
        ctx.progress(2, 2)
        ctx.log.debug('below threshold')
        ctx.log.warning('careful', 'chatty')
        return 'done'
      },
    }),
    defineTool({
      name: 'strict_input',
      inputSchema: {
        type: 'object',
        properties: { date: { type: 'string', format: 'date' }, n: { type: 'integer', maximum: 10 } },
        required: ['date'],
        additionalProperties: false,
      },
      handler: () => 'ok',
    }),
  ],
})
const fetcher = createFetchHandler(server)
const call = (name: string, args: Record<string, unknown> = {}, extraMeta: Record<string, unknown> = {}) =>
  post(fetcher, 'tools/call', { name, arguments: args }, { meta: meta(extraMeta) })

describe('tools/call results', () => {
  it('returns structuredContent validated by outputSchema, with a JSON text copy', async () => {
    const result = resultOf(await call('add', { a: 2, b: 3 }))
    expect(result).toMatchObject({ resultType: 'complete', structuredContent: { sum: 5 } })
    expect(result.content).toEqual([{ type: 'text', text: '{"sum":5}' }])
  })

  it('allows array structuredContent', async () => {
    const result = resultOf(await call('list_users'))
    expect(result.structuredContent).toEqual([{ id: '1' }, { id: '2' }])
    expect((result.content as { text: string }[])[0]?.text).toBe('[{"id":"1"},{"id":"2"}]')
  })

  it('never sends output that breaks the tool own outputSchema: -32603 and a log line', async () => {
    logs.length = 0
    const answer = await call('liar')
    expect(errorOf(answer).code).toBe(-32603)
    expect(logs.join('\n')).toContain('liar')
  })

  it('never sends malformed content blocks', async () => {
    expect(errorOf(await call('broken_block')).code).toBe(-32603)
  })

  it('keeps explicit content next to structured content', async () => {
    const result = resultOf(await call('both'))
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'custom text' }],
      structuredContent: { ok: true },
    })
  })

  it('passes resource links and annotations through', async () => {
    const result = resultOf(await call('link'))
    expect((result.content as unknown[]).length).toBe(2)
  })

  it('turns a plain object into structured content plus text, and undefined into empty content', async () => {
    expect(resultOf(await call('object_sugar'))).toMatchObject({ structuredContent: { city: 'Paris' } })
    expect(resultOf(await call('nothing')).content).toEqual([])
  })
})

describe('tools/call errors', () => {
  it('reports invalid arguments as an isError result listing every problem', async () => {
    const result = resultOf(await call('add', { a: 'two' }))
    expect(result.isError).toBe(true)
    const text = (result.content as { text: string }[])[0]?.text ?? ''
    expect(text).toContain('Invalid arguments for tool add')
    expect(text).toMatch(/a: .*number/)
    expect(text).toMatch(/b: /)
  })

  it('reports JSON Schema violations with paths and formats', async () => {
    const result = resultOf(await call('strict_input', { date: 'yesterday', n: 11, extra: 1 }))
    const text = (result.content as { text: string }[])[0]?.text ?? ''
    expect(text).toContain('date: must match format "date"')
    expect(text).toContain('n: must be <= 10')
    expect(text).toContain("unexpected property 'extra'")
  })

  it('can report invalid arguments as -32602 instead', async () => {
    const strict = defineServer({
      name: 'strict',
      version: '1',
      invalidArguments: 'protocol-error',
      tools: [
        defineTool({ name: 'add', inputSchema: z.object({ a: z.number() }), handler: ({ a }) => String(a) }),
      ],
    })
    const answer = await post(createFetchHandler(strict), 'tools/call', { name: 'add', arguments: {} })
    expect(errorOf(answer)).toMatchObject({ code: -32602 })
    expect(errorOf(answer).message).toContain('Invalid arguments for tool add')
  })

  it("keeps a plain Error's message out of the reply by default: it may name hosts or credentials", async () => {
    logs.length = 0
    const result = resultOf(await call('author_error'))
    const text = (result.content as { text: string }[])[0]?.text ?? ''
    expect(result.isError).toBe(true)
    expect(text).toMatch(/^Tool author_error failed unexpectedly \(ref [\w-]+\)$/)
    expect(text).not.toContain('Atlantis')
    const ref = /ref ([\w-]+)/.exec(text)?.[1] as string
    expect(logs.find((line) => line.includes(ref))).toContain('City not found: Atlantis')
  })

  it("shows a plain Error's message with errorExposure: 'message'", async () => {
    const author = defineTool({
      name: 'author_error',
      handler: () => {
        throw new Error('City not found: Atlantis')
      },
    })
    const open = defineServer({ name: 't', version: '1', tools: [author], errorExposure: 'message' })
    const answer = await post(createFetchHandler(open), 'tools/call', { name: 'author_error', arguments: {} })
    expect(resultOf(answer)).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'City not found: Atlantis' }],
    })
  })

  it('reports a programming error generically with a correlation id', async () => {
    logs.length = 0
    const result = resultOf(await call('bug'))
    const text = (result.content as { text: string }[])[0]?.text ?? ''
    expect(result.isError).toBe(true)
    expect(text).toMatch(/failed unexpectedly \(ref .+\)/)
    expect(text).not.toContain('undefined')
    expect(logs.join('\n')).toContain('tool bug threw')
  })

  it('reports a ToolError exactly', async () => {
    expect(resultOf(await call('deliberate'))).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Out of stock: try another size' }],
    })
  })
})

describe('progress and logging', () => {
  it('answers plain JSON when the request asked for neither', async () => {
    const answer = await call('chatty')
    expect(answer.contentType).toBe('application/json')
    expect(answer.messages).toHaveLength(1)
  })

  it('streams increasing progress and logs at or above the level, then the result', async () => {
    const answer = await call('chatty', {}, { progressToken: 7, 'io.modelcontextprotocol/logLevel': 'info' })
    expect(answer.contentType).toBe('text/event-stream')
    expect(answer.headers.get('x-accel-buffering')).toBe('no')
    const methods = answer.messages.map((m) => m.method ?? 'response')
    expect(methods).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/message',
      'response',
    ])
    expect(answer.messages[0]?.params).toEqual({ progressToken: 7, progress: 1, total: 2, message: 'half' })
    expect(answer.messages[2]?.params).toEqual({ level: 'warning', logger: 'chatty', data: 'careful' })
  })
})

describe('a cancelled call', () => {
  it('is not reported as a failure: the handler stopped because it was asked to', async () => {
    const reported: string[] = []
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    let settled = false
    const waiting = defineServer({
      name: 'waits',
      version: '1',
      logger: { error: (m) => reported.push(m), warn: (m) => reported.push(m) },
      tools: [
        defineTool({
          name: 'wait',
          handler: (_args, ctx) =>
            new Promise<string>((_resolve, reject) => {
              ctx.signal.addEventListener(
                'abort',
                () => {
                  settled = true
                  reject(ctx.signal.reason)
                },
                { once: true },
              )
              started()
            }),
        }),
      ],
    })
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(waiting) })
    const abort = new AbortController()
    const answered = client.callTool('wait', {}, { signal: abort.signal }).catch(() => undefined)
    await running
    // The client goes away (streamable-http §Cancellation): the handler's signal aborts.
    abort.abort()
    await expect.poll(() => settled).toBe(true)
    await answered
    await client.close()
    expect(reported).toEqual([])
  })
})
