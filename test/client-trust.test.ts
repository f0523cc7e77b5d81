/**
 * What the client trusts and caches: a result is checked against the tool's definition even on a fresh
 * client, list pages are keyed by cursor ("" included), protocol version and every credential header, and a
 * call whose timeout progress keeps resetting still has a ceiling.
 */
import { describe, expect, it } from 'vitest'
import { connect, InvalidResponseError, RequestTimeoutError, UnknownToolError } from '../src/client/index.js'
import { createFetchHandler, defineServer, defineTool, type RequestContext } from '../src/index.js'
import { createScriptedServer } from './fixtures/scripted-server.js'
import { recordingFetch } from './helpers/recording-fetch.js'

const URL_ = 'http://127.0.0.1/mcp'

describe('results are checked against the definition', () => {
  it('fetches the definition before trusting the first result of a fresh client', async () => {
    const client = connect(
      { url: URL_, fetch: createFetchHandler(createScriptedServer()) },
      { warn: () => {} },
    )
    const error = await client.callTool('liar').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidResponseError)
    expect((error as Error).message).toMatch(/n: must be number/)
  })
})

describe('a tool the client has no definition of', () => {
  /**
   * A server whose list grows: `late` (structuredContent that breaks its outputSchema) appears only after
   * `addLate()`, while the client holds a cached list; `ghost` is never listed but answers calls.
   */
  const growingServer = () => {
    let withLate = false
    const late = {
      name: 'late',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    }
    const server = defineServer({
      name: 'growing',
      version: '1',
      features: [
        {
          methods: {
            'tools/list': {
              handler: () => ({
                resultType: 'complete',
                tools: [{ name: 'early', inputSchema: { type: 'object' } }, ...(withLate ? [late] : [])],
                ttlMs: 600_000,
                cacheScope: 'public',
              }),
            },
            'tools/call': {
              handler: () => ({
                resultType: 'complete',
                content: [{ type: 'text', text: '{"n":"not a number"}' }],
                structuredContent: { n: 'not a number' },
              }),
            },
          },
        },
      ],
    })
    return { server, addLate: () => (withLate = true) }
  }

  it('lists again past its cache and checks the result of a tool added since', async () => {
    const { server, addLate } = growingServer()
    const recorder = recordingFetch(createFetchHandler(server))
    const client = connect({ url: URL_, fetch: recorder.fetch }, { warn: () => {} })
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['early'])
    addLate()
    expect((await client.listTools()).cached).toBe(true) // the cached list does not know `late`
    const error = await client.callTool('late').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidResponseError)
    expect((error as Error).message).toMatch(/late: structuredContent does not match the outputSchema/)
    const methods = recorder.requests.map((request) => request.body.method)
    expect(methods).toEqual(['tools/list', 'tools/list', 'tools/call'])
  })

  it('refuses, before sending anything, a tool the server still does not list', async () => {
    const { server } = growingServer()
    const recorder = recordingFetch(createFetchHandler(server))
    const client = connect({ url: URL_, fetch: recorder.fetch }, { warn: () => {} })
    const error = await client.callTool('ghost').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnknownToolError)
    expect(error).toMatchObject({ tool: 'ghost' })
    expect((error as Error).message).toMatch(/ghost: not called, the server does not list this tool/)
    expect(recorder.requests.map((request) => request.body.method)).toEqual(['tools/list'])
  })

  it('calls an unlisted tool with allowUnlisted, and returns its result unchecked', async () => {
    const { server } = growingServer()
    const client = connect({ url: URL_, fetch: createFetchHandler(server) }, { warn: () => {} })
    const result = await client.callTool('ghost', {}, { allowUnlisted: true })
    expect(result.structuredContent).toEqual({ n: 'not a number' })
  })

  it('names the reason when the tool was listed but dropped by this client', async () => {
    const client = connect(
      { url: URL_, fetch: createFetchHandler(createScriptedServer()) },
      { warn: () => {} },
    )
    const error = await client.callTool('bad_header').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnknownToolError)
    expect((error as Error).message).toMatch(/dropped this tool .*x-mcp-header "Data"/)
  })
})

describe('list cache keys', () => {
  /** Two pages: the first hands out the empty cursor "", the second ends the list. */
  const pagedByEmptyCursor = () =>
    defineServer({
      name: 'paged',
      version: '1',
      features: [
        {
          methods: {
            'tools/list': {
              handler: (ctx: RequestContext) => {
                const first = ctx.params.cursor === undefined
                const tool = { name: first ? 'a' : 'b', inputSchema: { type: 'object' } }
                return {
                  resultType: 'complete',
                  tools: [tool],
                  ttlMs: 60_000,
                  cacheScope: 'public',
                  ...(first && { nextCursor: '' }),
                }
              },
            },
          },
        },
      ],
    })

  it('treats the cursor "" as a cursor, not as the first page', async () => {
    const client = connect({ url: URL_, fetch: createFetchHandler(pagedByEmptyCursor()) })
    const first = await client.listTools()
    expect(first.tools.map((tool) => tool.name)).toEqual(['a', 'b'])
    const again = await client.listTools()
    expect(again).toEqual({ tools: first.tools, cached: true })
  })

  it('keys private pages on every credential header, not only Authorization', async () => {
    const server = defineServer({
      name: 'private',
      version: '1',
      tools: [defineTool({ name: 'x', handler: () => '' })],
      toolVisibility: () => true, // per-caller visibility makes the lists private
    })
    const recorder = recordingFetch(createFetchHandler(server))
    let key = 'alice-key'
    const client = connect({ url: URL_, fetch: recorder.fetch, headers: () => ({ 'X-Api-Key': key }) })
    expect((await client.listTools()).cached).toBe(false)
    expect((await client.listTools()).cached).toBe(true)
    key = 'bob-key'
    expect((await client.listTools()).cached).toBe(false)
    expect(recorder.requests.at(-1)!.headers.get('x-api-key')).toBe('bob-key')
  })
})

describe('a ceiling on calls whose timeout progress resets', () => {
  it('stops a call that sends progress forever after 10 × timeoutMs by default', async () => {
    const chatty = defineTool({
      name: 'chatty',
      handler: async (_args, ctx) => {
        const until = Date.now() + 30_000 // bounded even if the cancellation never arrived
        for (let step = 1; !ctx.signal.aborted && Date.now() < until; step++) {
          ctx.progress(step)
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        return 'stopped'
      },
    })
    const server = defineServer({ name: 'p', version: '1', tools: [chatty], security: { rateLimit: false } })
    const client = connect({ url: URL_, fetch: createFetchHandler(server) })
    await client.listTools()
    const started = Date.now()
    const error = await client
      .callTool('chatty', {}, { timeoutMs: 600, resetTimeoutOnProgress: true })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).timeoutMs).toBe(6000)
    expect(Date.now() - started).toBeGreaterThanOrEqual(5900)
  }, 40_000)
})
