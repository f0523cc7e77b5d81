/**
 * toolwire's client against real 2025-era servers: the official SDK v1 (1.32.2) over Streamable HTTP with and
 * without sessions and over stdio, and @modelcontextprotocol/server-everything over stdio. The era is found
 * as basic/versioning §Backward Compatibility says, and the one client API covers both eras.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Client, type InputHandlers } from '../src/client/index.js'
import { RequestCancelledError } from '../src/client/errors.js'
import { McpError } from '../src/wire/errors.js'
import { connectStdio } from '../src/client/stdio-entry.js'
import { httpAnswerSaysLegacy, stdioProbeSaysLegacy } from '../src/client/legacy.js'
import {
  ProtocolError,
  RequestTimeoutError,
  TransportError,
  VersionMismatchError,
} from '../src/client/errors.js'
import { startSdkV1Http } from './fixtures/sdk-v1-server.mjs'
import { ROOT } from './helpers/paths.js'

const SDK_V1_STDIO = {
  command: process.execPath,
  args: [join(ROOT, 'test', 'fixtures', 'sdk-v1-server.mjs')],
}
const EVERYTHING = {
  command: process.execPath,
  args: [
    join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'),
    'stdio',
  ],
  stderr: 'ignore' as const,
}

const asked: string[] = []
const handlers: InputHandlers = {
  elicitation: (params, context) => {
    asked.push(`elicitation for ${context.method} ${context.name ?? ''}`.trim())
    return { action: 'accept', content: 'requestedSchema' in params ? { name: 'Ada' } : {} }
  },
  sampling: async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Paris' },
    model: 'test-model',
  }),
  roots: [{ uri: 'file:///srv/project', name: 'project' }],
}

const text = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text

/** Calls `slow`, cancels it once the server reports it started, and waits until its handler saw it. */
async function cancelOnceStarted(client: Client): Promise<void> {
  const before = Number(text(await client.callTool('cancelled_count')))
  const controller = new AbortController()
  const call = client.callTool(
    'slow',
    {},
    { signal: controller.signal, onProgress: () => controller.abort() },
  )
  await expect(call).rejects.toBeInstanceOf(RequestCancelledError)
  await expect
    .poll(async () => Number(text(await client.callTool('cancelled_count'))), { timeout: 10_000 })
    .toBe(before + 1)
}

/** Records the JSON-RPC method and session header of every HTTP message the client sends. */
function recording(): { fetch: (request: Request) => Promise<Response>; sent: string[] } {
  const sent: string[] = []
  return {
    sent,
    fetch: async (request) => {
      const body =
        request.method === 'POST' ? (JSON.parse(await request.clone().text()) as { method?: string }) : {}
      const session = request.headers.get('mcp-session-id') ? ' +session' : ''
      const method = body.method ?? (request.method === 'POST' ? 'response' : undefined)
      sent.push(`${request.method}${method ? ` ${method}` : ''}${session}`)
      return fetch(request)
    },
  }
}

describe('era detection rules', () => {
  it('falls back on HTTP only for a 4xx without a recognised modern error', () => {
    expect(
      httpAnswerSaysLegacy(new ProtocolError(-32000, 'Bad Request: No valid session ID', undefined, 400)),
    ).toBe(true)
    expect(httpAnswerSaysLegacy(new TransportError('empty 400', { status: 400 }))).toBe(true)
    expect(httpAnswerSaysLegacy(new TransportError('HTML 404', { status: 404 }))).toBe(true)
    for (const code of [-32020, -32021, -32022]) {
      expect(httpAnswerSaysLegacy(new ProtocolError(code, 'modern', undefined, 400))).toBe(false)
    }
    expect(httpAnswerSaysLegacy(new ProtocolError(-32601, 'Method not found', undefined, 404))).toBe(false)
    expect(httpAnswerSaysLegacy(new TransportError('no token', { status: 401 }))).toBe(false)
    expect(httpAnswerSaysLegacy(new TransportError('scope', { status: 403 }))).toBe(false)
    expect(httpAnswerSaysLegacy(new ProtocolError(-32602, 'unknown tool', undefined, 200))).toBe(false)
    expect(httpAnswerSaysLegacy(new TransportError('connection refused'))).toBe(false)
  })

  it('falls back on stdio for any error that is not modern, or no answer', () => {
    expect(stdioProbeSaysLegacy(new ProtocolError(-32601, 'Method not found'))).toBe(true)
    expect(stdioProbeSaysLegacy(new ProtocolError(-32602, 'Invalid params'))).toBe(true)
    expect(stdioProbeSaysLegacy(new ProtocolError(-32000, 'Server not initialized'))).toBe(true)
    expect(stdioProbeSaysLegacy(new RequestTimeoutError(10))).toBe(true)
    expect(stdioProbeSaysLegacy(new ProtocolError(-32022, 'Unsupported protocol version'))).toBe(false)
    expect(stdioProbeSaysLegacy(new VersionMismatchError(['2026-07-28'], ['2027-01-01']))).toBe(false)
    expect(stdioProbeSaysLegacy(new TransportError('exited'))).toBe(false)
  })
})

describe('SDK v1 server over Streamable HTTP with sessions', () => {
  let server: Awaited<ReturnType<typeof startSdkV1Http>>
  let client: Client
  const recorder = recording()
  beforeAll(async () => {
    server = await startSdkV1Http()
    client = connect({ url: server.url, fetch: recorder.fetch }, { handlers })
  })
  afterAll(async () => {
    await client.close()
    await server.close()
  })

  it('tries the modern request, falls back to initialize, and lists and calls', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toContain('add')
    expect(client.legacy).toBe(true)
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(recorder.sent.slice(0, 3)).toEqual([
      'POST tools/list',
      'POST initialize',
      'POST notifications/initialized +session',
    ])
    // then the request again in the session, and the session's GET stream for what the server sends unasked
    expect(recorder.sent).toEqual(expect.arrayContaining(['POST tools/list +session', 'GET +session']))
    const result = await client.callTool('add', { a: 2, b: 3 })
    expect(result.structuredContent).toEqual({ sum: 5 })
    const discovered = await client.discover()
    expect(discovered.supportedVersions).toEqual(['2025-11-25'])
    expect(discovered._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'sdk-v1' })
  })

  it('streams progress and answers the server’s own requests with the input handlers', async () => {
    const progress: number[] = []
    expect(text(await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) }))).toBe(
      'three steps done',
    )
    expect(progress).toEqual([1, 2, 3])
    expect(text(await client.callTool('ask_name'))).toBe('Hello, Ada!')
    expect(asked).toContain('elicitation for tools/call ask_name')
    expect(text(await client.callTool('ask_model'))).toBe('The model said Paris')
    expect(text(await client.callTool('count_roots'))).toBe('1 roots: file:///srv/project')
  })

  it('cancels with notifications/cancelled', async () => {
    await cancelOnceStarted(client)
    expect(recorder.sent).toContain('POST notifications/cancelled +session')
  })

  it('reads prompts and resources, and delivers list_changed from the GET stream to onToolsChanged', async () => {
    const prompt = await client.request('prompts/get', { name: 'greet', arguments: { name: 'Ada' } })
    expect(JSON.stringify(prompt.messages)).toContain('Hello Ada')
    const read = await client.request('resources/read', { uri: 'memo://readme' })
    expect(read.contents).toEqual([{ uri: 'memo://readme', mimeType: 'text/plain', text: 'read me' }])
    let changed: string[] = []
    const subscription = await client.subscribe(
      { toolsListChanged: true },
      { onToolsChanged: (tools) => (changed = tools.map((tool) => tool.name)), refreshDebounceMs: 10 },
    )
    expect(subscription.acknowledged).toEqual({ toolsListChanged: true })
    expect(recorder.sent).toContain('GET +session')
    await client.callTool('grow')
    await expect.poll(() => changed, { timeout: 10_000 }).toContain('extra_1')
    await subscription.close()
    expect(await subscription.ended).toEqual({ reason: 'closed' })
  })

  it('starts a new session when the server ended the old one (404)', async () => {
    await server.endSessions()
    expect(server.sessions.size).toBe(0)
    expect((await client.callTool('add', { a: 4, b: 5 })).structuredContent).toEqual({ sum: 9 })
    expect(server.sessions.size).toBe(1)
    expect(recorder.sent.filter((line) => line === 'POST initialize')).toHaveLength(2)
  })

  it('remembers the era of the endpoint and ends the session with DELETE on close', async () => {
    const other = recording()
    const second = connect({ url: server.url, fetch: other.fetch })
    expect(text(await second.callTool('add', { a: 1, b: 1 }))).toBe('2')
    expect(other.sent[0]).toBe('POST initialize')
    const sessions = server.sessions.size
    await second.close()
    expect(other.sent.at(-1)).toBe('DELETE +session')
    expect(server.sessions.size).toBe(sessions - 1)
  })
})

describe('SDK v1 server over Streamable HTTP without sessions', () => {
  it('lists, calls and streams progress', async () => {
    const server = await startSdkV1Http({ stateless: true })
    const client = connect({ url: server.url })
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('add')
      expect(client.legacy).toBe(true)
      expect((await client.callTool('add', { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 })
      const progress: number[] = []
      await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) })
      expect(progress).toEqual([1, 2, 3])
    } finally {
      await client.close()
      await server.close()
    }
  })
})

describe('SDK v1 server over stdio', () => {
  let client: Client
  beforeAll(() => {
    client = connectStdio({ ...SDK_V1_STDIO, stderr: 'ignore' }, { handlers })
  })
  afterAll(() => client.close())

  it('probes with server/discover, falls back to initialize, and lists and calls', async () => {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('ask_name')
    expect(client.legacy).toBe(true)
    expect((await client.callTool('add', { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 })
  })

  it('answers elicitation, sampling and roots, streams progress and cancels', async () => {
    expect(text(await client.callTool('ask_name'))).toBe('Hello, Ada!')
    expect(text(await client.callTool('ask_model'))).toBe('The model said Paris')
    expect(text(await client.callTool('count_roots'))).toBe('1 roots: file:///srv/project')
    const progress: number[] = []
    await client.callTool('steps', {}, { onProgress: (p) => progress.push(p.progress) })
    expect(progress).toEqual([1, 2, 3])
    await cancelOnceStarted(client)
  })

  it('delivers list_changed notifications to onToolsChanged', async () => {
    let changed: string[] = []
    const subscription = await client.subscribe(
      { toolsListChanged: true },
      { onToolsChanged: (tools) => (changed = tools.map((tool) => tool.name)), refreshDebounceMs: 10 },
    )
    await client.callTool('grow')
    await expect.poll(() => changed, { timeout: 10_000 }).toContain('extra_1')
    await subscription.close()
  })
})

describe('a handler that refuses a 2025-era server request (the SDK v1 asking server, stdio)', () => {
  const asking = {
    command: process.execPath,
    args: [join(ROOT, 'test', 'fixtures', 'sdk-v1-asking-server.mjs')],
  }

  it('answers with the McpError code it throws; without an McpError -32603 with its message', async () => {
    const client = connectStdio(
      { ...asking, stderr: 'ignore' },
      {
        handlers: {
          sampling: () => Promise.reject(new McpError(-1, 'User rejected sampling request')),
          elicitation: () => Promise.reject(new Error('the form was closed')),
        },
      },
    )
    try {
      // The server's tool reports the error its request was answered with.
      expect(text(await client.callTool('ask_model'))).toBe('MCP error -1: User rejected sampling request')
      expect(text(await client.callTool('confirm'))).toBe('MCP error -32603: the form was closed')
    } finally {
      await client.close()
    }
  })
})

describe('@modelcontextprotocol/server-everything over stdio', () => {
  let client: Client
  beforeAll(() => {
    client = connectStdio(EVERYTHING, { handlers })
  })
  afterAll(() => client.close())

  it('lists and calls', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']))
    expect(client.legacy).toBe(true)
    expect(text(await client.callTool('get-sum', { a: 2, b: 3 }))).toBe('The sum of 2 and 3 is 5.')
  })

  it('streams progress of a long-running operation', async () => {
    const progress: number[] = []
    await client.callTool(
      'trigger-long-running-operation',
      { duration: 0.2, steps: 3 },
      { onProgress: (p) => progress.push(p.progress) },
    )
    expect(progress).toEqual([1, 2, 3])
  })

  it('answers a sampling and an elicitation request', async () => {
    expect(text(await client.callTool('trigger-sampling-request', { prompt: 'Capital?' }))).toContain('Paris')
    const elicited = await client.callTool('trigger-elicitation-request')
    expect(JSON.stringify(elicited.content)).toContain('Name: Ada')
    // 2025-era stdio does not say which call asked: the context names the server's own request.
    expect(asked).toContain('elicitation for elicitation/create')
  })

  it('completes a prompt argument', async () => {
    const { completion } = await client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: '' },
    })
    expect(completion).toMatchObject({ values: expect.arrayContaining(['Engineering', 'Sales']) })
  })

  it('lists prompts and resources and subscribes to a resource', async () => {
    const prompts = await client.request('prompts/list')
    expect(Array.isArray(prompts.prompts)).toBe(true)
    const { resources } = (await client.request('resources/list')) as { resources: { uri: string }[] }
    const uri = resources[0]?.uri as string
    const subscription = await client.subscribe({ resourceSubscriptions: [uri], toolsListChanged: true })
    expect(subscription.acknowledged).toEqual({ resourceSubscriptions: [uri], toolsListChanged: true })
    await subscription.close()
  })
})
