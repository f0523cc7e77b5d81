/**
 * Generated bad input (fast-check, fixed seed): malformed bodies, envelopes, params and headers over real
 * HTTP and over stdio to a real child process. Every message must get a clear answer (a JSON-RPC error,
 * a tool error, or a result for inputs that happen to be valid), nothing may crash, hang or answer 5xx,
 * and a valid call must still work afterwards. FUZZ_RUNS (default 10 000 per transport) and FUZZ_SEED
 * make bigger or different runs on demand.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { meta, standardHeaders } from '../helpers/http.js'
import { assertServerMessage } from '../helpers/spec-schema.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_728)
/** Bigger runs get proportionally more time. */
const TIMEOUT = Math.max(60_000, RUNS * 3)
const METHODS = [
  'tools/call',
  'tools/list',
  'server/discover',
  'prompts/list',
  'initialize',
  'ping',
  'x/y',
  '',
]
const TOOLS = ['echo', 'lookup', 'now', 'reflect', 'missing', '', 'echo\u0000', '../etc/passwd']

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
})
const anyJson = fc.jsonValue({ maxDepth: 4 })

/** Deep structures of random shape, past the nesting limit or just below it. */
const deep = fc.integer({ min: 50, max: 3000 }).map((depth) => {
  let value: unknown = 'x'
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { k: value }
  return value
})
const pollution = fc.constantFrom(
  JSON.parse('{"__proto__":{"polluted":1}}') as unknown,
  { constructor: { prototype: { polluted: 1 } } },
  JSON.parse('{"a":{"__proto__":{"isAdmin":true}}}') as unknown,
)
const argumentValues = fc.oneof(
  fc.record(
    { message: fc.oneof(fc.string({ maxLength: 300 }), anyJson), times: fc.oneof(fc.integer(), anyJson) },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      region: fc.oneof(printable, anyJson),
      tags: fc.oneof(fc.array(fc.string(), { maxLength: 8 }), anyJson),
    },
    { requiredKeys: [] },
  ),
  fc.dictionary(fc.string({ maxLength: 10 }), anyJson, { maxKeys: 5 }),
  anyJson,
  deep,
  pollution,
)
const metaValues = fc
  .oneof(
    { weight: 6, arbitrary: fc.constant(meta()) },
    fc.constant(undefined),
    anyJson,
    fc.record(
      {
        'io.modelcontextprotocol/protocolVersion': fc.oneof(fc.constant('2026-07-28'), printable, anyJson),
        'io.modelcontextprotocol/clientInfo': fc.oneof(fc.constant({ name: 'f', version: '1' }), anyJson),
        'io.modelcontextprotocol/clientCapabilities': fc.oneof(fc.constant({}), anyJson),
        'io.modelcontextprotocol/logLevel': fc.oneof(fc.constantFrom('debug', 'error'), anyJson),
      },
      { requiredKeys: [] },
    ),
  )
  .map((value) => value)

interface Case {
  /** What goes on the wire (a JSON text, or raw bytes). */
  readonly body: string | Uint8Array
  readonly method: string
  readonly name: string | undefined
  /** A request with a fixed id that must be answered with that id. */
  readonly id: string | undefined
  readonly headerEdits: readonly [string, string | undefined][]
}

/** Requests whose envelope is well formed (so they must be answered by id) with hostile params. */
const shapedRequest = fc
  .record({
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constant('tools/call') },
      fc.constantFrom(...METHODS),
      printable,
    ),
    name: fc.oneof(fc.constantFrom(...TOOLS), printable, anyJson),
    arguments: argumentValues,
    meta: metaValues,
    extra: fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 3 }),
    cursor: fc.oneof(fc.constant(undefined), printable, anyJson),
    paramsShape: fc.constantFrom(
      'object',
      'object',
      'object',
      'object',
      'object',
      'object',
      'array',
      'scalar',
      'missing',
    ),
  })
  .map(({ method, name, arguments: args, meta: m, extra, cursor, paramsShape }) => {
    const params: Record<string, unknown> = { ...extra, name, arguments: args }
    if (m !== undefined) params._meta = m
    if (cursor !== undefined) params.cursor = cursor
    const message: Record<string, unknown> = { jsonrpc: '2.0', id: 0, method }
    if (paramsShape === 'object') message.params = params
    if (paramsShape === 'array') message.params = [params]
    if (paramsShape === 'scalar') message.params = 42
    return { message, method, name: typeof name === 'string' ? name : undefined }
  })

/** Whole messages of any shape: random JSON, broken envelopes, batches, responses, notifications. */
const anyMessage = fc.oneof(
  anyJson,
  fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), anyJson),
      id: anyJson,
      method: fc.oneof(printable, anyJson),
      params: anyJson,
    },
    { requiredKeys: [] },
  ),
  fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), method: fc.constant('tools/list') }), {
    minLength: 1,
    maxLength: 3,
  }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), result: anyJson }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    method: fc.constantFrom('notifications/cancelled', 'notifications/x'),
    params: anyJson,
  }),
)

/** Bytes that are not JSON: text, invalid UTF-8, truncated JSON, nothing at all. */
const garbage = fc.oneof(
  fc.string({ maxLength: 200 }).map((text) => `#${text}`),
  fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => Uint8Array.from([0x7b, 0xff, ...bytes])),
  fc
    .nat({ max: 120 })
    .map(
      (cut) =>
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }).slice(
          0,
          cut,
        ) + '\u0000',
    ),
)

const HEADER_NAMES = [
  'host',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-param-region',
  'content-type',
  'accept',
  'origin',
  'authorization',
  'x-mcp-header',
]
const headerEdits = fc.oneof(
  { weight: 3, arbitrary: fc.constant([]) },
  fc.array(
    fc.tuple(
      fc.constantFrom(...HEADER_NAMES),
      fc.oneof(
        fc.constant(undefined),
        printable,
        fc.constantFrom(
          '2026-07-28',
          'tools/call',
          'echo',
          'application/json',
          'text/html',
          '=?base64?',
          '*/*',
        ),
      ),
    ),
    { minLength: 1, maxLength: 3 },
  ),
)

function cases(count: number, seed: number): Case[] {
  const arbitrary = fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(shapedRequest, headerEdits)
        .map(([r, edits]) => ({ ...r, kind: 'request' as const, edits })),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(anyMessage, headerEdits)
        .map(([message, edits]) => ({ kind: 'message' as const, message, edits })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(garbage, headerEdits)
        .map(([bytes, edits]) => ({ kind: 'garbage' as const, bytes, edits })),
    },
  )
  return fc.sample(arbitrary, { numRuns: count, seed }).map((sample, index): Case => {
    if (sample.kind === 'request') {
      const id = `fz-${index}`
      return {
        body: JSON.stringify({ ...sample.message, id }),
        method: sample.method,
        name: sample.name,
        id,
        headerEdits: sample.edits,
      }
    }
    if (sample.kind === 'message') {
      return {
        body: JSON.stringify(sample.message) ?? 'null',
        method: 'tools/list',
        name: undefined,
        id: undefined,
        headerEdits: sample.edits,
      }
    }
    return {
      body: sample.bytes,
      method: 'tools/list',
      name: undefined,
      id: undefined,
      headerEdits: sample.edits,
    }
  })
}

/** Controls and bidi overrides a terminal or a model must never receive from a result (tab, LF, CRLF aside). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/
/** Every string of a value, keys included. */
const stringsOf = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : typeof value === 'object' && value !== null
      ? Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)])
      : []

/**
 * A clear answer: a valid JSON-RPC message whose errors say something. Bad input is the caller's fault,
 * so it must never surface as an internal error (-32603, or a tool that "failed unexpectedly").
 */
function checkMessage(message: unknown, context: string): Record<string, unknown> {
  expect(message, context).toBeTypeOf('object')
  assertServerMessage(message)
  const record = message as Record<string, unknown>
  if ('error' in record) {
    const error = record.error as { code: unknown; message: unknown }
    expect(Number.isInteger(error.code), context).toBe(true)
    expect(typeof error.message === 'string' && error.message.length > 0, context).toBe(true)
    expect(error.code, context).not.toBe(-32603)
  }
  if ('result' in record) {
    const text = JSON.stringify((record.result as { content?: unknown }).content ?? '')
    expect(text, context).not.toMatch(/failed unexpectedly|produced an invalid result|invalid binary content/)
    // Every string of a result, `_meta`, block `_meta`, annotations and keys included, reaches clients clean.
    expect(
      stringsOf(record.result).filter((value) => UNSAFE.test(value)),
      context,
    ).toEqual([])
  }
  return record
}

const VALID_CALL = {
  jsonrpc: '2.0',
  id: 'final',
  method: 'tools/call',
  params: { _meta: meta(), name: 'echo', arguments: { message: 'still here', times: 2 } },
}
const PROBE = {
  jsonrpc: '2.0',
  id: 'probe',
  method: 'tools/call',
  params: { _meta: meta(), name: 'probe', arguments: {} },
}
/** The fixture server in a child process: `serve test/fixtures/fuzz-server.ts` with the given transport. */
function startChild(transport: string[]): ChildProcess {
  return spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', 'test/fixtures/fuzz-server.ts', ...transport],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  )
}
const expectValidAnswer = (message: Record<string, unknown>): void => {
  expect(message.id).toBe('final')
  expect((message.result as { content: { text: string }[] }).content[0]?.text).toBe('still herestill here')
}

describe(`bad-input suite (${RUNS} cases per transport, seed ${SEED})`, () => {
  let httpChild: ChildProcess
  let httpUrl: URL
  let httpExit: number | null | undefined
  const agent = new Agent({ keepAlive: true, maxSockets: 16 })
  beforeAll(async () => {
    httpChild = startChild(['--http', '127.0.0.1:0'])
    httpChild.on('exit', (code) => (httpExit = code))
    let output = ''
    httpUrl = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 15_000)
      httpChild.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        const match = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(output)
        if (match) {
          clearTimeout(timer)
          resolve(new URL(match[0]))
        }
      })
    })
  })
  afterAll(() => {
    agent.destroy()
    httpChild.kill('SIGKILL')
  })

  function send(
    body: string | Uint8Array,
    headers: Record<string, string>,
  ): Promise<{ status: number; text: string; contentType: string }> {
    const url = httpUrl
    return new Promise((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).toString(),
              contentType: String(res.headers['content-type'] ?? ''),
            }),
          )
          res.on('error', reject)
        },
      )
      req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')))
      req.on('error', reject)
      req.end(body)
    })
  }

  it(
    'answers every malformed HTTP message clearly, without 5xx, and still serves',
    async () => {
      const all = cases(RUNS, SEED)
      const statuses = new Map<number, number>()
      let next = 0
      const worker = async (): Promise<void> => {
        for (let index = next++; index < all.length; index = next++) {
          const item = all[index] as Case
          const headers: Record<string, string> = standardHeaders(
            item.method,
            item.name === undefined ? {} : { name: item.name },
          )
          if (
            item.name !== undefined &&
            headers['mcp-name'] !== undefined &&
            !/^[\x20-\x7e]*$/.test(item.name)
          )
            delete headers['mcp-name']
          for (const [name, value] of item.headerEdits) {
            if (value === undefined) delete headers[name]
            else headers[name] = value
          }
          const context = `case ${index}: ${JSON.stringify(headers)} ${typeof item.body === 'string' ? item.body.slice(0, 300) : `bytes ${Buffer.from(item.body).toString('hex').slice(0, 120)}`}`
          const answer = await send(item.body, headers)
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
          expect(answer.status, context).toBeLessThan(500)
          if (answer.status === 202) {
            expect(answer.text, context).toBe('')
            continue
          }
          expect(answer.contentType, context).toMatch(/^application\/json/)
          const message = checkMessage(JSON.parse(answer.text), context)
          if (
            item.id !== undefined &&
            answer.status !== 403 &&
            answer.status !== 406 &&
            answer.status !== 415 &&
            answer.status !== 413
          )
            expect(message.id, context).toBe(item.id)
        }
      }
      await Promise.all(Array.from({ length: 16 }, worker))
      expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(RUNS)
      const final = await send(JSON.stringify(VALID_CALL), standardHeaders('tools/call', { name: 'echo' }))
      expect(final.status).toBe(200)
      expectValidAnswer(JSON.parse(final.text) as Record<string, unknown>)
      // Nothing leaked onto Object.prototype in the server from the pollution attempts.
      const probe = await send(JSON.stringify(PROBE), standardHeaders('tools/call', { name: 'probe' }))
      expect(
        (JSON.parse(probe.text) as { result: { content: { text: string }[] } }).result.content[0]?.text,
      ).toBe('clean')
      expect(httpExit).toBeUndefined()
    },
    TIMEOUT,
  )

  it(
    'answers every malformed stdio line clearly in a real child process, and still serves',
    async () => {
      const all = cases(RUNS, SEED + 1)
      const child = startChild(['--stdio'])
      let exitCode: number | null | undefined
      child.on('exit', (code) => (exitCode = code))
      let buffered = ''
      const messages: Record<string, unknown>[] = []
      let finalAnswer: ((message: Record<string, unknown>) => void) | undefined
      let failed: ((error: unknown) => void) | undefined
      let problem: unknown
      child.stdout?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString()
        const lines = buffered.split('\n')
        buffered = lines.pop() ?? ''
        for (const line of lines) {
          try {
            const message = checkMessage(JSON.parse(line), `stdout line ${line.slice(0, 300)}`)
            messages.push(message)
            if (message.id === 'final') finalAnswer?.(message)
          } catch (error) {
            problem ??= error
            failed?.(error)
          }
        }
      })
      try {
        let mustAnswerWithoutId = 0
        const ids = new Set<string>()
        for (const item of all) {
          let bytes = typeof item.body === 'string' ? Buffer.from(item.body) : Buffer.from(item.body)
          // One line per case: a newline inside would split it into two messages.
          bytes = Buffer.from(bytes.filter((byte) => byte !== 0x0a && byte !== 0x0d))
          if (typeof item.body !== 'string' || item.body.startsWith('#')) mustAnswerWithoutId++
          if (item.id !== undefined) ids.add(item.id)
          if (!child.stdin?.write(Buffer.concat([bytes, Buffer.from('\n')])))
            await new Promise((resolve) => child.stdin?.once('drain', resolve))
        }
        if (problem) throw problem
        const final = new Promise<Record<string, unknown>>((resolve, reject) => {
          finalAnswer = resolve
          failed = reject
          setTimeout(
            () => reject(new Error(`no answer to the final call; ${messages.length} messages so far`)),
            30_000,
          )
        })
        child.stdin?.write(`${JSON.stringify(VALID_CALL)}\n`)
        expectValidAnswer(await final)
        child.stdin?.write(`${JSON.stringify(PROBE)}\n`)
        await expect
          .poll(() => messages.find((message) => message.id === 'probe'), { timeout: 10_000 })
          .toMatchObject({ result: { content: [{ type: 'text', text: 'clean' }] } })
        expect(exitCode).toBeUndefined()
        const answered = new Set(messages.map((message) => message.id))
        const missing = [...ids].filter((id) => !answered.has(id))
        expect(missing, 'requests with an id that got no answer').toEqual([])
        const withoutId = messages.filter((message) => message.id === undefined || message.id === null).length
        expect(withoutId).toBeGreaterThanOrEqual(mustAnswerWithoutId)
      } finally {
        child.stdin?.end()
        child.kill('SIGKILL')
      }
    },
    TIMEOUT,
  )
})
