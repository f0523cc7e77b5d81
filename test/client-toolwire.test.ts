/** toolwire's client against toolwire's server in-process (fetch handler): the client's obligations one by one. */
import { afterEach, describe, expect, it } from 'vitest'
import {
  connect,
  InvalidResponseError,
  ProtocolError,
  RequestCancelledError,
  RequestTimeoutError,
  ToolExecutionError,
} from '../src/client/index.js'
import { createFetchHandler, defineServer } from '../src/index.js'
import { invalidParams } from '../src/wire/errors.js'
import { createScriptedServer, type Recorded, STATE } from './fixtures/scripted-server.js'
import { createToolwireTestServer, type ServerEvents } from './fixtures/toolwire-server.js'
import { recordingFetch } from './helpers/recording-fetch.js'

const URL_ = 'http://127.0.0.1/mcp'

function setup(options: Parameters<typeof connect>[1] = {}) {
  const events: ServerEvents = { aborted: [], started: [] }
  const recorder = recordingFetch(createFetchHandler(createToolwireTestServer(events)))
  const warnings: string[] = []
  const client = connect({ url: URL_, fetch: recorder.fetch }, { warn: (m) => warnings.push(m), ...options })
  return { client, events, recorder, warnings }
}

let problems: unknown[] = []
afterEach(() => {
  expect(problems).toEqual([]) // every server message was valid per the MCP schema
  problems = []
})

describe('requests', () => {
  it('carry the _meta envelope and the standard headers', async () => {
    const { client, recorder } = setup()
    problems = recorder.problems
    await client.discover()
    await client.listTools()
    await client.callTool('where', { region: 'eu' })
    for (const { headers, body } of recorder.requests) {
      const meta = (body.params as Record<string, Record<string, unknown>>)._meta!
      expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28')
      // The tasks extension is declared by default (extensions/tasks §Capability Negotiation).
      expect(meta['io.modelcontextprotocol/clientCapabilities']).toEqual({
        extensions: { 'io.modelcontextprotocol/tasks': {} },
      })
      expect(meta['io.modelcontextprotocol/clientInfo']).toMatchObject({ name: 'toolwire' })
      expect(headers.get('mcp-protocol-version')).toBe('2026-07-28')
      expect(headers.get('mcp-method')).toBe(body.method)
      expect(headers.get('accept')).toBe('application/json, text/event-stream')
    }
    expect(recorder.requests.at(-1)!.headers.get('mcp-name')).toBe('where')
    expect(new Set(recorder.requests.map((r) => r.body.id)).size).toBe(recorder.requests.length)
  })

  it('discover returns versions, capabilities and identity', async () => {
    const { client, recorder } = setup()
    problems = recorder.problems
    const result = await client.discover()
    expect(result.supportedVersions).toEqual(['2026-07-28'])
    expect(result.capabilities.tools).toEqual({ listChanged: true })
    expect(await client.serverInfo()).toEqual({ name: 'client-test-server', version: '1.0.0' })
  })
})

describe('tools', () => {
  it('lists tools and serves them from the cache while ttlMs lasts', async () => {
    const { client, recorder } = setup()
    problems = recorder.problems
    const first = await client.listTools()
    expect(first.tools.map((t) => t.name)).toEqual(['where', 'count', 'slow', 'fail'])
    expect(first.cached).toBe(false)
    const second = await client.listTools()
    expect(second.cached).toBe(true)
    expect(recorder.requests.filter((r) => r.body.method === 'tools/list')).toHaveLength(1)
    expect((await client.listTools({ fresh: true })).cached).toBe(false)
  })

  it('follows cursors across pages and caches each page', async () => {
    const recorder = recordingFetch(createFetchHandler(createToolwireTestServer(undefined, { pageSize: 1 })))
    problems = recorder.problems
    const client = connect({ url: URL_, fetch: recorder.fetch })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['where', 'count', 'slow', 'fail'])
    const lists = recorder.requests.filter((r) => r.body.method === 'tools/list')
    expect(lists).toHaveLength(4)
    expect((lists[0]!.body.params as Record<string, unknown>).cursor).toBeUndefined()
    expect(typeof (lists[1]!.body.params as Record<string, unknown>).cursor).toBe('string')
    expect((await client.listTools()).cached).toBe(true)
  })

  it('starts over when a cached cursor has become invalid', async () => {
    let generation = 1
    const server = defineServer({
      name: 'cursors',
      version: '1.0.0',
      features: [
        {
          methods: {
            'tools/list': {
              handler: (ctx) => {
                const cursor = ctx.params.cursor
                const tool = (name: string) => ({ name, inputSchema: { type: 'object' } })
                if (cursor === undefined) {
                  const page = { tools: [tool('first')], nextCursor: `g${generation}`, ttlMs: 60_000 }
                  return { resultType: 'complete', cacheScope: 'public', ...page }
                }
                if (cursor !== `g${generation}`) throw invalidParams('Invalid cursor')
                return { resultType: 'complete', tools: [tool('second')], ttlMs: 0, cacheScope: 'public' }
              },
            },
          },
        },
      ],
    })
    const recorder = recordingFetch(createFetchHandler(server))
    problems = recorder.problems
    const client = connect({ url: URL_, fetch: recorder.fetch })
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['first', 'second'])
    generation = 2
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['first', 'second'])
    const cursors = recorder.requests.map((r) => (r.body.params as { cursor?: string }).cursor ?? null)
    expect(cursors).toEqual([null, 'g1', 'g1', null, 'g2'])
  })

  it('caches a private list per credential, never across credentials', async () => {
    let token = 'alice'
    const server = createToolwireTestServer(undefined, { toolVisibility: () => true })
    const recorder = recordingFetch(createFetchHandler(server))
    problems = recorder.problems
    const client = connect({
      url: URL_,
      fetch: recorder.fetch,
      headers: () => ({ Authorization: `Bearer ${token}` }),
    })
    expect((await client.listTools()).cached).toBe(false)
    expect((await client.listTools()).cached).toBe(true)
    token = 'bob'
    expect((await client.listTools()).cached).toBe(false)
    expect(recorder.requests.at(-1)!.headers.get('authorization')).toBe('Bearer bob')
  })

  it('mirrors x-mcp-header parameters into Mcp-Param headers, base64 when needed, omitting nulls', async () => {
    const { client, recorder } = setup()
    problems = recorder.problems
    await client.listTools()
    const result = await client.callTool('where', { region: ' Zürich ', verbose: null, note: 'n' })
    expect(result.structuredContent).toEqual({ region: ' Zürich ', note: 'n' })
    const headers = recorder.requests.at(-1)!.headers
    expect(headers.get('mcp-param-region')).toBe(`=?base64?${Buffer.from(' Zürich ').toString('base64')}?=`)
    expect(headers.has('mcp-param-verbose')).toBe(false)
    await client.callTool('where', { region: 'eu', verbose: true })
    expect(recorder.requests.at(-1)!.headers.get('mcp-param-region')).toBe('eu')
    expect(recorder.requests.at(-1)!.headers.get('mcp-param-verbose')).toBe('true')
  })

  it('lists the tools before the first call of a fresh client, so its Mcp-Param headers are right at once', async () => {
    const { client, recorder } = setup()
    problems = recorder.problems
    const result = await client.callTool('where', { region: 'eu' })
    expect(result.structuredContent).toEqual({ region: 'eu', note: '' })
    const methods = recorder.requests.map((r) => [r.body.method, r.headers.get('mcp-param-region')])
    expect(methods).toEqual([
      ['tools/list', null],
      ['tools/call', 'eu'],
    ])
  })

  it('encodes a tool name that is not a plain header value', async () => {
    const { HttpTransport } = await import('../src/client/http.js')
    const headers = HttpTransport.standardHeaders({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'résumé', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    })
    expect(headers).toEqual({
      'mcp-method': 'tools/call',
      'mcp-protocol-version': '2026-07-28',
      'mcp-name': `=?base64?${Buffer.from('résumé').toString('base64')}?=`,
    })
  })

  it('reports progress with a unique token', async () => {
    const { client, recorder } = setup()
    problems = recorder.problems
    const seen: [number, number | undefined][] = []
    const result = await client.callTool(
      'count',
      { n: 3 },
      { onProgress: (p) => seen.push([p.progress, p.total]) },
    )
    expect(seen).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ])
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 3' }])
    const meta = (recorder.requests.at(-1)!.body.params as { _meta: { progressToken: unknown } })._meta
    expect(typeof meta.progressToken).toBe('string')
  })

  it('separates tool errors from protocol errors', async () => {
    const { client, recorder } = setup()
    problems = recorder.problems
    const result = await client.callTool('fail')
    expect(result.isError).toBe(true)
    const thrown = await client.callTool('fail', {}, { throwOnToolError: true }).catch((e: unknown) => e)
    expect(thrown).toBeInstanceOf(ToolExecutionError)
    expect((thrown as Error).message).toBe('the tool failed on purpose')
    // Sent anyway (allowUnlisted), so the server's own answer is what comes back.
    const protocol = await client.callTool('missing', {}, { allowUnlisted: true }).catch((e: unknown) => e)
    expect(protocol).toBeInstanceOf(ProtocolError)
    expect((protocol as ProtocolError).code).toBe(-32602)
    expect((protocol as Error).message).toMatch(/missing/)
  })

  it('cancels a call through its AbortSignal: the server sees the disconnect', async () => {
    const { client, events, recorder } = setup()
    problems = recorder.problems
    const controller = new AbortController()
    const call = client.callTool('slow', {}, { signal: controller.signal })
    await expect.poll(() => events.started).toEqual(['slow'])
    controller.abort()
    await expect(call).rejects.toBeInstanceOf(RequestCancelledError)
    await expect.poll(() => events.aborted).toEqual(['slow'])
  })

  it('lets progress restart the timeout, within a total limit', async () => {
    const { client, recorder } = setup()
    problems = recorder.problems
    // The call takes at least 4 × 300 ms; progress comes every 300 ms, well inside a 1.5 s timeout even on a
    // busy machine. A slower machine only makes the two expected timeouts more certain.
    const args = { n: 4, delayMs: 300 }
    await expect(client.callTool('count', args, { timeoutMs: 1_000 })).rejects.toBeInstanceOf(
      RequestTimeoutError,
    )
    const ok = await client.callTool('count', args, {
      timeoutMs: 1_500,
      resetTimeoutOnProgress: true,
    })
    expect(ok.content).toEqual([{ type: 'text', text: 'counted to 4' }])
    const capped = client.callTool('count', args, {
      timeoutMs: 1_500,
      resetTimeoutOnProgress: true,
      maxTotalTimeoutMs: 600,
    })
    await expect(capped).rejects.toMatchObject({ name: 'RequestTimeoutError', timeoutMs: 600 })
  })

  it('times out and cancels', async () => {
    const { client, events, recorder } = setup()
    problems = recorder.problems
    // 'slow' waits 10 s; the handler has long started when the 1 s timeout fires, even on a busy machine.
    await expect(client.callTool('slow', {}, { timeoutMs: 1_000 })).rejects.toBeInstanceOf(
      RequestTimeoutError,
    )
    expect(events.started).toEqual(['slow'])
    await expect.poll(() => events.aborted).toEqual(['slow'])
  })
})

describe('a server that breaks rules or asks for input', () => {
  function scripted(options: Parameters<typeof connect>[1] = {}) {
    const calls: Recorded[] = []
    const warnings: string[] = []
    const client = connect(
      { url: URL_, fetch: createFetchHandler(createScriptedServer(calls)) },
      { warn: (m) => warnings.push(m), ...options },
    )
    return { client, calls, warnings }
  }

  it('drops tools with invalid x-mcp-header annotations, naming tool and rule', async () => {
    const { client, warnings } = scripted()
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).not.toContain('bad_header')
    expect(tools.map((t) => t.name)).toContain('confirm')
    expect(warnings).toEqual([expect.stringMatching(/"bad_header".*x-mcp-header "Data".*needs type/)])
  })

  it('keeps every other tool usable', async () => {
    const { client } = scripted()
    const book = await client.listTools()
    expect(book.tools).toHaveLength(9)
  })

  it('answers input_required with the handler and retries with a new id and the exact requestState', async () => {
    const asked: unknown[] = []
    const { client, calls } = scripted({
      handlers: {
        elicitation: (params, context) => {
          asked.push([params.message, context.key, context.name])
          return { action: 'accept', content: { ok: true } }
        },
      },
    })
    const result = await client.callTool('confirm', { target: 'prod' })
    expect(result.content).toEqual([{ type: 'text', text: 'confirmed' }])
    expect(asked).toEqual([['Really act on prod?', 'confirm', 'confirm']])
    expect(calls).toHaveLength(2)
    expect(calls[1]!.id).not.toBe(calls[0]!.id)
    expect(calls[1]!.params.requestState).toBe(STATE)
    expect(calls[1]!.params.inputResponses).toEqual({ confirm: { action: 'accept', content: { ok: true } } })
    expect(calls[1]!.params.arguments).toEqual({ target: 'prod' })
    expect(calls[0]!.params).not.toHaveProperty('requestState')
  })

  it('passes a declined form back to the server', async () => {
    const { client } = scripted({ handlers: { elicitation: () => ({ action: 'decline' }) } })
    expect((await client.callTool('confirm')).content).toEqual([{ type: 'text', text: 'user chose decline' }])
  })

  it('stops after maxInputRounds', async () => {
    const { client, calls } = scripted({ maxInputRounds: 3 })
    await expect(client.callTool('endless')).rejects.toThrow(/still asking for input after 3 rounds/)
    expect(calls).toHaveLength(3)
    expect(calls[2]!.params.requestState).toBe('round-2')
  })

  it('refuses input requests for capabilities it did not declare', async () => {
    const { client } = scripted({ handlers: { elicitation: () => ({ action: 'cancel' }) } })
    await expect(client.callTool('wants_sampling')).rejects.toThrow(
      /sampling, which this client did not declare/,
    )
  })

  it('declares capabilities for the handlers it has', async () => {
    const { client } = scripted({
      handlers: { elicitation: () => ({ action: 'cancel' }), roots: [{ uri: 'file:///tmp' }] },
    })
    expect(client.capabilities).toEqual({
      elicitation: { form: {}, url: {} },
      roots: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    })
  })

  it('validates structuredContent against the outputSchema', async () => {
    const { client } = scripted()
    await client.listTools()
    const error = await client.callTool('liar').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidResponseError)
    expect((error as Error).message).toMatch(/n: must be number/)
  })

  it('never fetches a network $ref, and rejects the schema instead', async () => {
    const fetched: string[] = []
    const original = globalThis.fetch
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      fetched.push(String(input))
      return original(input)
    }) as typeof fetch
    try {
      const { client } = scripted()
      await client.listTools()
      await expect(client.callTool('remote_ref')).rejects.toThrow(/outputSchema/)
      expect(fetched).toEqual([])
    } finally {
      globalThis.fetch = original
    }
  })

  it('runs input_required rounds for prompts/get too, answering roots/list from the roots given', async () => {
    const { client, calls } = scripted({ handlers: { roots: [{ uri: 'file:///repo', name: 'repo' }] } })
    const result = await client.request('prompts/get', { name: 'review', arguments: {} })
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review file:///repo' } },
    ])
    expect(calls.map((c) => c.params.inputResponses)).toEqual([
      undefined,
      { roots: { roots: [{ uri: 'file:///repo', name: 'repo' }] } },
    ])
  })

  it('treats a missing resultType as complete and an unknown one as an error', async () => {
    const { client } = scripted()
    expect((await client.callTool('no_result_type')).content).toEqual([
      { type: 'text', text: 'legacy-shaped result' },
    ])
    // "task" is known only with the tasks extension, and then needs a real task.
    await expect(client.callTool('task_result')).rejects.toThrow(/not a task/)
    const { client: plain } = scripted({ tasks: false })
    await expect(plain.callTool('task_result')).rejects.toThrow(/did not declare tasks/)
  })
})
