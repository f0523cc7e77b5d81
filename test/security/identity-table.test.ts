/**
 * One identity for everything a caller owns. Every owner-keyed feature runs against four callers over real
 * sockets: the user "alice", a client whose client_id is "alice", and anonymous callers from 127.0.0.1 and
 * 127.0.0.2 (another address on Linux). For each ordered pair of different callers, what the first one owns
 * is reachable by the first and not by the second. A feature added later joins by adding a row to FEATURES.
 */
import { request as httpRequest } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import {
  defineHandles,
  defineServer,
  defineTool,
  type HttpAuthenticator,
  MemoryHandleStore,
  type Server,
} from '../../src/index.js'
import type { NodeHandlerOptions } from '../../src/transports/http/node.js'
import { meta, parseSse, standardHeaders } from '../helpers/http.js'
import { live, type Live } from '../helpers/live.js'

interface Caller {
  readonly name: string
  readonly from: string
  readonly headers: Record<string, string>
}

const CALLERS: readonly Caller[] = [
  { name: 'user:alice', from: '127.0.0.1', headers: { 'x-user': 'alice', 'x-kind': 'user' } },
  { name: 'client:alice', from: '127.0.0.1', headers: { 'x-user': 'alice', 'x-kind': 'client' } },
  { name: 'anonymous from 127.0.0.1', from: '127.0.0.1', headers: {} },
  { name: 'anonymous from 127.0.0.2', from: '127.0.0.2', headers: {} },
]

/** Trusts `x-user` and `x-kind` (a token's `sub`, or a client-credentials `client_id`); anonymous without. */
const headerAuth: HttpAuthenticator = {
  authenticate: (request) => {
    const subject = request.header('x-user')
    if (!subject) return { ok: true }
    const subjectKind = request.header('x-kind') === 'client' ? 'client' : 'user'
    const claims = { [subjectKind === 'client' ? 'client_id' : 'sub']: subject, tenant: `t-${subject}` }
    return { ok: true, auth: { subject, subjectKind, scopes: ['read'], claims, token: 'never-stored' } }
  },
}

/** A client that can answer an elicitation, for input rounds outside a task. */
const ELICIT_META = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } })

const TASKS_META = meta({
  'io.modelcontextprotocol/clientCapabilities': {
    extensions: { 'io.modelcontextprotocol/tasks': {} },
    elicitation: {},
  },
})

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Record<string, unknown> | undefined
}

/** One HTTP request from the caller's address with its identity headers; the last JSON-RPC message back. */
function send(
  mcp: Live,
  caller: Caller,
  message: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<Reply> {
  const url = new URL(mcp.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: caller.from,
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
          ...caller.headers,
        },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
        res.on('end', () => {
          const messages = res.headers['content-type']?.startsWith('text/event-stream')
            ? parseSse(text)
            : text
              ? [JSON.parse(text) as Record<string, unknown>]
              : []
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: messages.at(-1) })
        })
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(message))
  })
}

let nextId = 1
/** A current-revision request (`_meta` and the standard headers, `Mcp-Name` for a task id). */
function call(
  mcp: Live,
  caller: Caller,
  method: string,
  params: Record<string, unknown>,
  requestMeta = meta(),
): Promise<Reply> {
  const headers = standardHeaders(method, params)
  if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId
  const message = { jsonrpc: '2.0', id: nextId++, method, params: { _meta: requestMeta, ...params } }
  return send(mcp, caller, message, headers)
}

const resultOf = (reply: Reply): Record<string, unknown> | undefined =>
  reply.body?.result as Record<string, unknown> | undefined

/** Polls a task as its creator until it has finished (a generous deadline, no fixed sleep). */
async function finished(mcp: Live, caller: Caller, taskId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const task = resultOf(await call(mcp, caller, 'tasks/get', { taskId }, TASKS_META))
    if (!task) throw new Error(`task ${taskId} is not visible to its creator`)
    if (['completed', 'failed', 'cancelled'].includes(String(task.status))) return task
    if (Date.now() > deadline) throw new Error(`task ${taskId} stayed ${String(task.status)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A listen stream held open; `status` once the response starts (200 open, 429 refused). */
function openListen(mcp: Live, caller: Caller): Promise<{ status: number; close: () => void }> {
  const url = new URL(mcp.url)
  const params = { notifications: { toolsListChanged: true } }
  const message = {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'subscriptions/listen',
    params: { _meta: meta(), ...params },
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: caller.from,
        agent: false,
        headers: { ...standardHeaders('subscriptions/listen', params), ...caller.headers },
      },
      (res) => {
        res.resume()
        resolve({ status: res.statusCode ?? 0, close: () => req.destroy() })
      },
    )
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)))
    req.end(JSON.stringify(message))
  })
}

/**
 * An owner-keyed feature: `own` makes something that belongs to the caller on a fresh server (a handle, a
 * task, a session, a spent budget …) and `reaches` says whether a caller can get at it.
 */
interface Feature {
  readonly name: string
  readonly server: () => Server
  readonly options?: NodeHandlerOptions
  own(mcp: Live, owner: Caller): Promise<string>
  reaches(mcp: Live, caller: Caller, thing: string): Promise<boolean>
}

const boxes = defineHandles<string>({ kind: 'box', createTool: 'box_open', store: new MemoryHandleStore() })
const handleTools = [
  defineTool({ name: 'box_open', handler: (_args, ctx) => boxes.create(ctx, 'inside') }),
  defineTool({
    name: 'box_peek',
    inputSchema: { type: 'object', properties: { box: { type: 'string' } }, required: ['box'] },
    handler: (args, ctx) => boxes.get(ctx, args.box),
  }),
  defineTool({
    name: 'box_peek_later',
    task: 'optional',
    inputSchema: { type: 'object', properties: { box: { type: 'string' } }, required: ['box'] },
    handler: (args, ctx) => boxes.get(ctx, args.box),
  }),
  defineTool({
    name: 'ask',
    task: 'optional',
    handler: async (_args, ctx) => {
      const answer = await ctx.input.elicit(
        { message: 'Go?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
        'go',
      )
      return `answered ${String(answer.content?.ok)}`
    },
  }),
  defineTool({
    name: 'wait',
    task: 'optional',
    handler: (_args, ctx) =>
      new Promise<string>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve('stopped'), { once: true }),
      ),
  }),
]
type ServerOptions = Parameters<typeof defineServer>[0]
const makeServer = (extra: ServerOptions['security'] = {}, tasks?: ServerOptions['tasks']): Server =>
  defineServer({
    name: 'identity',
    version: '1.0.0',
    tools: handleTools,
    requestState: { secret: 'identity-table-secret-0123456789' },
    security: { auth: headerAuth, ...extra },
    ...(tasks && { tasks }),
  })

/** Polls a task as its creator until it waits for input. */
async function waitingForInput(mcp: Live, caller: Caller, taskId: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while (
    resultOf(await call(mcp, caller, 'tasks/get', { taskId }, TASKS_META))?.status !== 'input_required'
  ) {
    if (Date.now() > deadline) throw new Error(`task ${taskId} never asked for input`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const textOf = (result: Record<string, unknown> | undefined): string =>
  ((result?.content as { text?: string }[] | undefined) ?? []).map((block) => block.text ?? '').join('')

async function startTask(mcp: Live, caller: Caller, name: string, args: Record<string, unknown>) {
  const created = resultOf(await call(mcp, caller, 'tools/call', { name, arguments: args }, TASKS_META))
  const taskId = (created?.task as { taskId?: string } | undefined)?.taskId ?? created?.taskId
  if (typeof taskId !== 'string') throw new Error(`no task: ${JSON.stringify(created)}`)
  return taskId
}

const FEATURES: readonly Feature[] = [
  {
    name: 'input rounds (requestState)',
    server: () => makeServer(),
    own: async (mcp, owner) => {
      const reply = await call(mcp, owner, 'tools/call', { name: 'ask', arguments: {} }, ELICIT_META)
      const asked = resultOf(reply)
      if (typeof asked?.requestState !== 'string') throw new Error(`no input round: ${JSON.stringify(reply)}`)
      return asked.requestState
    },
    reaches: async (mcp, caller, requestState) => {
      const inputResponses = { go: { action: 'accept', content: { ok: true } } }
      const params = { name: 'ask', arguments: {}, inputResponses, requestState }
      return textOf(resultOf(await call(mcp, caller, 'tools/call', params, ELICIT_META))) === 'answered true'
    },
  },
  {
    name: 'handles',
    server: () => makeServer(),
    own: async (mcp, owner) =>
      textOf(resultOf(await call(mcp, owner, 'tools/call', { name: 'box_open', arguments: {} }))),
    reaches: async (mcp, caller, box) => {
      const result = resultOf(await call(mcp, caller, 'tools/call', { name: 'box_peek', arguments: { box } }))
      return result?.isError !== true && textOf(result) === 'inside'
    },
  },
  {
    name: 'tasks (get)',
    server: () => makeServer(),
    own: (mcp, owner) => startTask(mcp, owner, 'wait', {}),
    reaches: async (mcp, caller, taskId) =>
      resultOf(await call(mcp, caller, 'tasks/get', { taskId }, TASKS_META))?.status === 'working',
  },
  {
    name: 'tasks (cancel)',
    server: () => makeServer(),
    own: (mcp, owner) => startTask(mcp, owner, 'wait', {}),
    reaches: async (mcp, caller, taskId) =>
      resultOf(await call(mcp, caller, 'tasks/cancel', { taskId }, TASKS_META)) !== undefined,
  },
  {
    name: 'tasks (update)',
    server: () => makeServer(),
    own: async (mcp, owner) => {
      const taskId = await startTask(mcp, owner, 'ask', {})
      await waitingForInput(mcp, owner, taskId)
      return taskId
    },
    reaches: async (mcp, caller, taskId) => {
      const inputResponses = { go: { action: 'accept', content: { ok: true } } }
      return (
        resultOf(await call(mcp, caller, 'tasks/update', { taskId, inputResponses }, TASKS_META)) !==
        undefined
      )
    },
  },
  {
    // The owner fills its one unfinished task: its next one is refused, others' are not.
    name: 'task quotas',
    server: () => makeServer({}, { maxLivePerPrincipal: 1 }),
    own: (mcp, owner) => startTask(mcp, owner, 'wait', {}),
    reaches: async (mcp, caller) =>
      (await call(mcp, caller, 'tools/call', { name: 'wait', arguments: {} }, TASKS_META)).status === 429,
  },
  {
    // The handle is made by a direct call; the task run that reads it acts as whoever started the task.
    name: 'task runs',
    server: () => makeServer(),
    own: async (mcp, owner) =>
      textOf(resultOf(await call(mcp, owner, 'tools/call', { name: 'box_open', arguments: {} }))),
    reaches: async (mcp, caller, box) => {
      const task = await finished(mcp, caller, await startTask(mcp, caller, 'box_peek_later', { box }))
      const result = task.result as Record<string, unknown> | undefined
      return task.status === 'completed' && result?.isError !== true && textOf(result) === 'inside'
    },
  },
  {
    name: '2025-era sessions',
    server: () => makeServer(),
    own: async (mcp, owner) => {
      const message = {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'old', version: '1' },
        },
      }
      const reply = await send(mcp, owner, message, {})
      return String(reply.headers['mcp-session-id'])
    },
    reaches: async (mcp, caller, sid) =>
      (await send(mcp, caller, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sid }))
        .status === 200,
  },
  {
    // The owner holds the one listen stream its budget allows: it is refused a second, others are not.
    name: 'subscriptions/listen streams',
    server: () => makeServer(),
    options: { maxListenStreamsPerAddress: 1 },
    own: async (mcp, owner) => {
      const stream = await openListen(mcp, owner)
      held.push(stream)
      return String(stream.status)
    },
    reaches: async (mcp, caller) => {
      const stream = await openListen(mcp, caller)
      held.push(stream)
      return stream.status === 429
    },
  },
  {
    // The owner spends its whole request budget: it is refused next, others are not.
    name: 'rate limits',
    server: () => makeServer({ rateLimit: { requests: { points: 3, durationMs: 600_000 } } }),
    own: async (mcp, owner) => {
      for (let i = 0; i < 3; i++) expect((await call(mcp, owner, 'tools/list', {})).status).toBe(200)
      return ''
    },
    reaches: async (mcp, caller) => (await call(mcp, caller, 'tools/list', {})).status === 429,
  },
]

const held: { close: () => void }[] = []
const servers: Live[] = []
afterEach(async () => {
  for (const stream of held.splice(0)) stream.close()
  await Promise.all(servers.splice(0).map((mcp) => mcp.close()))
})

const pairs = CALLERS.flatMap((owner) =>
  CALLERS.filter((other) => other !== owner).map((other) => ({ owner, other })),
)

describe.each(FEATURES)('$name: one owner per principal', (feature) => {
  it.each(pairs)('what $owner.name owns, it reaches and $other.name does not', async ({ owner, other }) => {
    const mcp = await live(feature.server(), feature.options)
    servers.push(mcp)
    const thing = await feature.own(mcp, owner)
    // The stranger tries first, so a cancel or a spent budget cannot hide a leak.
    expect(await feature.reaches(mcp, other, thing)).toBe(false)
    expect(await feature.reaches(mcp, owner, thing)).toBe(true)
  })
})

describe('a task runs as its creator', () => {
  const whoami = defineTool({
    name: 'whoami',
    task: 'optional',
    handler: (_args, ctx) =>
      JSON.stringify({
        principal: ctx.principal,
        auth: ctx.auth && { ...ctx.auth, token: undefined },
        address: ctx.exchange.remoteAddress,
      }),
  })

  it.each(CALLERS)('$name sees the same identity in a task as in a direct call', async (caller) => {
    const mcp = await live(
      defineServer({ name: 'whoami', version: '1.0.0', tools: [whoami], security: { auth: headerAuth } }),
    )
    servers.push(mcp)
    const direct = JSON.parse(
      textOf(resultOf(await call(mcp, caller, 'tools/call', { name: 'whoami', arguments: {} }))),
    )
    const task = await finished(mcp, caller, await startTask(mcp, caller, 'whoami', {}))
    const inTask = JSON.parse(textOf(task.result as Record<string, unknown>))
    expect(inTask).toEqual(direct)
    expect(direct.address).toBe(caller.from)
    if (caller.headers['x-user']) expect(direct.auth.claims.tenant).toBe('t-alice')
    // The bearer token is never stored with the task.
    expect(JSON.stringify(task)).not.toContain('never-stored')
  })
})
