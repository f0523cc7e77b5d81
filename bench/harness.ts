/**
 * What the benchmark and its test share: the three servers, how to start them over HTTP or stdio,
 * the exact requests sent, and the check that a server answers correctly before it is loaded.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

export interface BenchServer {
  readonly name: string
  /** Script run with the current node binary, relative to the repository root. */
  readonly script: string
}

export const SERVERS: readonly BenchServer[] = [
  { name: 'toolwire', script: 'bench/.build/main.js' },
  { name: 'SDK v2', script: 'bench/sdk-server.mjs' },
  { name: 'raw node', script: 'bench/raw-server.mjs' },
]

/**
 * Whether servers run on core 0 and the load generator (the bench process) on the other cores: off until
 * the benchmark turns it on (`pinApart`). Left to the scheduler, a server and its load generator share two
 * cores however it likes, and the same server's rounds scattered from 0.47x to 0.99x of the floor in one
 * run; pinned, each round gets the same split.
 */
let pinned = false

/**
 * Pins this process (the load generator) to every core but core 0, and every server started afterwards to
 * core 0. Needs two cores or more and `taskset` (util-linux); returns whether it could.
 */
export function pinApart(): boolean {
  if (availableParallelism() < 2) return false
  try {
    taskset(process.pid, `1-${availableParallelism() - 1}`)
  } catch {
    return false
  }
  pinned = true
  return true
}

/** Moves every thread of a process (and the threads it starts later) to the given cores. */
function taskset(pid: number, cores: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' })
}

/**
 * A server runs on core 0: pinned once started (after its cold start is measured: pinning is not part of
 * it), or right after it is forked.
 */
export function pinServer(pid: number | undefined): void {
  if (pinned && pid !== undefined) taskset(pid, '0')
}

/**
 * The command that starts a process on core 0 from the start, with everything it starts in turn (a gateway
 * and the server it spawns).
 */
export function onServerCore(command: string, args: readonly string[]): [string, string[]] {
  return pinned ? ['taskset', ['-c', '0', command, ...args]] : [command, [...args]]
}

export const PROTOCOL_VERSION = '2026-07-28'
const META = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'toolwire-bench', version: '0.1.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

export function callMessage(id: number, a = 2, b = 3): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'add', arguments: { a, b }, _meta: META },
  }
}

export function listMessage(id: number): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: META } }
}

/** The headers a 2026-07-28 client sends with each message (standard headers included). */
export function headersFor(message: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': String(message.method),
  }
  const params = message.params as { name?: unknown }
  if (typeof params.name === 'string') headers['mcp-name'] = params.name
  return headers
}

/** Why a tools/call answer is wrong, or undefined when it is right (sum of a and b, text and structured). */
export function callProblem(message: unknown, id: number, sum: number): string | undefined {
  const response = message as { id?: unknown; result?: Record<string, unknown>; error?: unknown }
  if (response.id !== id) return `wrong id ${JSON.stringify(response.id)}`
  if (!response.result) return `no result: ${JSON.stringify(response.error)}`
  const { resultType, content, structuredContent, isError } = response.result as {
    resultType?: unknown
    content?: { type?: unknown; text?: unknown }[]
    structuredContent?: { sum?: unknown }
    isError?: unknown
  }
  if (resultType !== 'complete') return `resultType ${JSON.stringify(resultType)}`
  if (isError) return 'isError result'
  if (structuredContent?.sum !== sum) return `structuredContent ${JSON.stringify(structuredContent)}`
  const text = content?.[0]
  if (text?.type !== 'text' || typeof text.text !== 'string') return 'no text content'
  if ((JSON.parse(text.text) as { sum?: unknown }).sum !== sum) return `text ${text.text}`
  return undefined
}

/** Why a tools/list answer is wrong: it must hold `add` first and `expected` tools in all. */
export function listProblem(message: unknown, id: number, expected: number): string | undefined {
  const response = message as { id?: unknown; result?: { tools?: { name?: unknown }[] }; error?: unknown }
  if (response.id !== id) return `wrong id ${JSON.stringify(response.id)}`
  const tools = response.result?.tools
  if (!Array.isArray(tools)) return `no tools: ${JSON.stringify(response.error)}`
  if (tools[0]?.name !== 'add') return `first tool is ${JSON.stringify(tools[0]?.name)}`
  if (tools.length !== expected) return `${tools.length} tools, expected ${expected}`
  return undefined
}

export interface HttpAnswer {
  readonly status: number
  readonly body: string
}

/** One POST on a fresh connection (with the standard headers for `message` unless `headers` are given). */
export function post(
  url: string,
  message: Record<string, unknown>,
  timeoutMs = 10_000,
  headers: Record<string, string> = headersFor(message),
): Promise<HttpAnswer> {
  const body = JSON.stringify(message)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
        res.on('error', reject)
      },
    )
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer from ${url} in ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end(body)
  })
}

export interface Running {
  readonly child: ChildProcess
  stop(): Promise<void>
}

/** Every server started here and still running; HTTP servers also by the URL they serve. */
const live = new Set<ChildProcess>()
const serving = new Map<string, ChildProcess>()

/**
 * Runs one measurement of a server (itself, or the URL it serves) with every other live server paused
 * (SIGSTOP, then SIGCONT). A server that fell behind under its own load (SDK v2 with 1,000 tools answers a
 * few calls a second) works through its backlog long after the load stops, on the core the next server is
 * measured on.
 */
export async function alone<T>(server: ChildProcess | string, measure: () => Promise<T>): Promise<T> {
  const target = typeof server === 'string' ? serving.get(server) : server
  const others = [...live].filter((child) => child !== target)
  for (const child of others) child.kill('SIGSTOP')
  try {
    return await measure()
  } finally {
    for (const child of others)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGCONT')
  }
}

function track(child: ChildProcess): Running {
  live.add(child)
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  }).then(() => {
    live.delete(child)
    for (const [url, server] of serving) if (server === child) serving.delete(url)
  })
  return {
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}

/** The URL a starting server prints on its stdout (`… on http://127.0.0.1:PORT/mcp`). */
export function announcedUrl(server: BenchServer, child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(() => reject(new Error(`${server.name} did not start`)), timeoutMs)
    child.once('exit', (code) => reject(new Error(`${server.name} exited with ${code}`)))
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      const match = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(seen)
      if (match) {
        clearTimeout(timer)
        resolve(match[0])
      }
    })
  })
}

export interface HttpRunning extends Running {
  readonly url: string
  /** Milliseconds from spawn to the first correct tools/call answer. */
  readonly coldStartMs: number
}

/** What a server needs beyond the defaults: environment variables, and headers for its first call. */
export interface StartExtras {
  readonly env?: Record<string, string>
  readonly headers?: Record<string, string>
}

/** Starts a server on a free 127.0.0.1 port and waits for its first correct tools/call answer. */
export async function startHttp(
  server: BenchServer,
  tools: number,
  timeoutMs = 20_000,
  extras: StartExtras = {},
): Promise<HttpRunning> {
  const started = performance.now()
  const child = spawn(process.execPath, [server.script], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', TOOLS: String(tools), ...extras.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const running = track(child)
  try {
    const url = await announcedUrl(server, child, timeoutMs)
    serving.set(url, child)
    const first = callMessage(1)
    const answer = await post(url, first, 10_000, { ...headersFor(first), ...extras.headers })
    const problem =
      answer.status === 200 ? callProblem(JSON.parse(answer.body), 1, 5) : `HTTP ${answer.status}`
    if (problem) throw new Error(`${server.name}: wrong first answer: ${problem}`)
    const coldStartMs = performance.now() - started
    pinServer(child.pid)
    return { ...running, url, coldStartMs }
  } catch (error) {
    await running.stop()
    throw error
  }
}

/**
 * Starts a server over HTTP and checks its answer to the `tools/call` every load round sends; resolves with
 * the server and that answer's body (what each counted answer under load must equal).
 */
export async function startChecked(
  server: BenchServer,
  name: string,
  env: Record<string, string>,
  headers: Record<string, string> = headersFor(callMessage(7)),
): Promise<{ running: HttpRunning; body: string }> {
  const running = await startHttp(server, 1, 20_000, { env, headers })
  try {
    const answer = await post(running.url, callMessage(7), 60_000, headers)
    const problem =
      answer.status === 200 ? callProblem(JSON.parse(answer.body), 7, 5) : `HTTP ${answer.status}`
    if (problem) throw new Error(`${name}: wrong answer before load: ${problem}`)
    return { running, body: answer.body }
  } catch (error) {
    await running.stop()
    throw error
  }
}

/** A stdio server with a line-oriented request/response client. */
export interface StdioRunning extends Running {
  /** Sends one message; resolves with the answer whose id matches. */
  send(message: Record<string, unknown>): Promise<unknown>
}

export function startStdio(server: BenchServer, tools: number): StdioRunning {
  const child = spawn(process.execPath, [server.script, '--stdio'], {
    cwd: ROOT,
    env: { ...process.env, TOOLS: String(tools) },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  pinServer(child.pid)
  const running = track(child)
  const waiting = new Map<unknown, (message: unknown) => void>()
  let rest = ''
  child.stdout?.setEncoding('utf8')
  child.stdout?.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n')
    rest = lines.pop() ?? ''
    for (const line of lines) {
      if (!line) continue
      const message = JSON.parse(line) as { id?: unknown }
      const resolve = waiting.get(message.id)
      waiting.delete(message.id)
      resolve?.(message)
    }
  })
  child.stdin?.on('error', () => undefined)
  return {
    ...running,
    send: (message) =>
      new Promise((resolve, reject) => {
        if (child.exitCode !== null) return reject(new Error(`${server.name} has exited`))
        waiting.set(message.id, resolve)
        child.stdin?.write(`${JSON.stringify(message)}\n`)
      }),
    stop: async () => {
      child.stdin?.end()
      await running.stop()
    },
  }
}

/** Peak resident set size of a running process, in MiB (Linux VmHWM). */
export async function peakRssMiB(pid: number | undefined): Promise<number> {
  const { readFile } = await import('node:fs/promises')
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const match = /VmHWM:\s+(\d+) kB/.exec(status)
  if (!match) throw new Error('VmHWM not found')
  return Number(match[1]) / 1024
}
