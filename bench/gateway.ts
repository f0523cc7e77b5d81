/**
 * The gateway part of `npm run bench` (`--only=gateway` runs it alone): tools/call through
 * `toolwire bridge --http` in front of a stdio upstream (the toolwire bench server, then the SDK v2 bench
 * server, each run with `--stdio`), against `supergateway` (the most used bridge, stdio → stateful Streamable
 * HTTP: one upstream process per session, like the bridge's one shared process) on the same upstream, and
 * against calling the upstream directly over stdio. Fronts are measured in alternating rounds; medians are
 * reported.
 *
 * - calls/s with 32 calls in flight (32 keep-alive connections) over one 2025-11-25 session, which both
 *   bridges speak. Each request has its own id (a stateful session routes answers by id, so autocannon's one
 *   fixed body would not do) and every answer is checked. The bridge's 2026-07-28 path (no session) is
 *   reported beside it. Target: the bridge at least 2x supergateway.
 * - p50 latency of sequential calls, timed one by one with `performance.now()` (sub-millisecond) over a
 *   keep-alive connection, minus the direct stdio call's p50, over the 2025-11-25 session and over the
 *   bridge's 2026-07-28 path. Target: the bridge adds at most 0.3 ms. Beside
 *   it, the p50 of one raw HTTP hop (bench/raw-server.mjs, same client): the least any HTTP front adds.
 *   Every HTTP request goes through a lean client (bench/lean-http.ts), the counterpart of the direct stdio
 *   client, so that node:http's own client cost is not counted as the bridge's.
 * - memory per open downstream session: a fresh bridge's resident set before and after opening 2,000 sessions.
 *
 *   node --expose-gc --import tsx bench/gateway.ts [--quick]   this part alone (after `npm run build && npm run build:bench`)
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  type BenchServer,
  callMessage,
  callProblem,
  headersFor,
  onServerCore,
  SERVERS,
  startHttp,
  startStdio,
  type StdioRunning,
} from './harness.js'
import { LeanHttpConnection } from './lean-http.js'
import { legacyCallMessage, legacyCallProblem, openLegacySession, parseAnswer } from './legacy.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CLI = `${ROOT}dist/cli/main.js`
// A test peer (test/peers/package.json), installed by `npm run test:peers`, which `npm run bench` runs first.
const SUPERGATEWAY = `${ROOT}test/peers/node_modules/supergateway/dist/index.js`
const IN_FLIGHT = 32
// Enough that their memory stands out of the resident set's own movement (200 sessions read as noise, even negative).
const SESSIONS = 2_000

/** The upstreams: the toolwire and SDK v2 bench servers over stdio (the raw floor has no stdio MCP). */
const UPSTREAMS: readonly BenchServer[] = SERVERS.slice(0, 2)
const RAW = SERVERS[2] as BenchServer

type FrontKind = 'bridge' | 'supergateway'
const FRONTS: readonly FrontKind[] = ['bridge', 'supergateway']

interface Front {
  readonly kind: FrontKind
  readonly url: string
  readonly child: ChildProcess
  stop(): Promise<void>
}

function stopper(child: ChildProcess): () => Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
  return async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000)
    await exited
    clearTimeout(killer)
  }
}

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** `toolwire bridge --http` in front of `upstream` over stdio; the URL is its first stdout line. */
async function startBridge(upstream: BenchServer): Promise<Front> {
  const child = spawn(
    ...onServerCore(process.execPath, [
      CLI,
      'bridge',
      '--http',
      '127.0.0.1:0',
      '--no-rate-limit',
      '--',
      process.execPath,
      `${ROOT}${upstream.script}`,
      '--stdio',
    ]),
    { cwd: ROOT, env: { ...process.env, TOOLS: '1' }, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const stop = stopper(child)
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('toolwire bridge did not start in 30 s')), 30_000)
    child.once('exit', (code) => reject(new Error(`toolwire bridge exited with ${code}`)))
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer)
      resolve(line.trim())
    })
  }).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  return { kind: 'bridge', url, child, stop }
}

/** supergateway, stdio → stateful Streamable HTTP, on a free port; ready once a session opens. */
async function startSupergateway(upstream: BenchServer): Promise<Front> {
  const port = await freePort()
  const command = `"${process.execPath}" "${ROOT}${upstream.script}" --stdio`
  const child = spawn(
    ...onServerCore(process.execPath, [
      SUPERGATEWAY,
      '--stdio',
      command,
      '--outputTransport',
      'streamableHttp',
      '--stateful',
      '--port',
      String(port),
      '--logLevel',
      'none',
    ]),
    { cwd: ROOT, env: { ...process.env, TOOLS: '1' }, stdio: ['ignore', 'ignore', 'inherit'] },
  )
  const stop = stopper(child)
  const url = `http://127.0.0.1:${port}/mcp`
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`supergateway exited with ${child.exitCode}`)
    const ready = await openLegacySession(url).then(
      () => true,
      () => false,
    )
    if (ready) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error('supergateway did not start in 30 s')
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { kind: 'supergateway', url, child, stop }
}

const startFront = (kind: FrontKind, upstream: BenchServer): Promise<Front> =>
  kind === 'bridge' ? startBridge(upstream) : startSupergateway(upstream)

/** How to call `add` on a front: the request for an id and operands, its headers, and the answer's check. */
interface Caller {
  readonly url: string
  readonly headers: Record<string, string>
  message(id: number, a: number, b: number): Record<string, unknown>
  problem(text: string, id: number, sum: number): string | undefined
}

/** A 2025-11-25 session on `url` (both bridges speak it), checked with one call. */
async function legacyCaller(url: string): Promise<Caller> {
  const headers = await openLegacySession(url)
  const caller: Caller = {
    url,
    headers,
    message: (id, a, b) => {
      const message = legacyCallMessage(id)
      return { ...message, params: { name: 'add', arguments: { a, b } } }
    },
    problem: (text, id, sum) => legacyCallProblem(parseAnswer(text), id, sum),
  }
  await calls(caller, 1, 1, 1)
  return caller
}

/** The bridge's 2026-07-28 path: no session, the `_meta` envelope and standard headers on each request. */
async function modernCaller(url: string): Promise<Caller> {
  const caller: Caller = {
    url,
    headers: headersFor(callMessage(0)),
    message: (id, a, b) => callMessage(id, a, b),
    problem: (text, id, sum) => callProblem(JSON.parse(text), id, sum),
  }
  await calls(caller, 1, 1, 1)
  return caller
}

let nextId = 1

/**
 * Calls `add` with `inFlight` calls outstanding (each lane on its own keep-alive connection) until `count`
 * calls are done or `seconds` have passed; every answer is checked and each request has its own id (a
 * stateful session routes answers by id). Returns calls per second and each call's latency in ms.
 */
async function calls(
  caller: Caller,
  inFlight: number,
  count: number,
  seconds: number,
): Promise<{ rate: number; latencies: number[] }> {
  const latencies: number[] = []
  const started = performance.now()
  const end = started + seconds * 1000
  let done = 0
  const connections: LeanHttpConnection[] = []
  const lane = async (): Promise<void> => {
    const connection = new LeanHttpConnection(caller.url)
    connections.push(connection)
    while (done < count && performance.now() < end) {
      const id = nextId++
      const a = id % 1000
      const body = JSON.stringify(caller.message(id, a, 1))
      const sent = performance.now()
      const text = await connection.post(body, caller.headers)
      latencies.push(performance.now() - sent)
      const problem = caller.problem(text, id, a + 1)
      if (problem) throw new Error(`${caller.url}: answer ${id} is wrong: ${problem}`)
      done++
    }
  }
  try {
    await Promise.all(Array.from({ length: inFlight }, lane))
  } finally {
    for (const connection of connections) connection.close()
  }
  return { rate: done / ((performance.now() - started) / 1000), latencies }
}

/** Per-call latencies (ms) of `count` sequential tools/calls straight to the upstream over stdio. */
async function stdioLatencies(running: StdioRunning, count: number): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const id = nextId++
    const started = performance.now()
    const answer = await running.send(callMessage(id, i, 1))
    times.push(performance.now() - started)
    const problem = callProblem(answer, id, i + 1)
    if (problem) throw new Error(`direct stdio answer ${id} is wrong: ${problem}`)
  }
  return times
}

const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** Resident set of a process now, in KiB (Linux VmRSS). */
async function rssKiB(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const match = /VmRSS:\s+(\d+) kB/.exec(status)
  if (!match) throw new Error('VmRSS not found')
  return Number(match[1])
}

/**
 * KiB a bridge holds per open 2025-11-25 session: the resident set of a fresh bridge (so no garbage from the
 * load rounds is collected on the way) before and after opening SESSIONS, after a few warm-up sessions.
 */
async function memoryPerSession(upstream: BenchServer): Promise<number> {
  const front = await startBridge(upstream)
  try {
    const sessions: Record<string, string>[] = []
    for (let i = 0; i < 20; i++) sessions.push(await openLegacySession(front.url))
    const before = await rssKiB(front.child.pid)
    for (let i = 0; i < SESSIONS; i++) sessions.push(await openLegacySession(front.url))
    const after = await rssKiB(front.child.pid)
    // Kept alive until measured: the sessions are what is being weighed.
    if (sessions.length !== SESSIONS + 20) throw new Error('a session did not open')
    return (after - before) / SESSIONS
  } finally {
    await front.stop()
  }
}

export interface GatewayBenchOptions {
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  /** Sequential calls per latency sample. */
  readonly latencyCalls: number
  readonly log?: (line: string) => void
}

interface UpstreamSamples {
  readonly rps: Record<FrontKind, number[]>
  readonly modernRps: number[]
  /** `hop`: the raw node:http floor's p50, sequential: one HTTP hop with no MCP work. */
  readonly p50: Record<FrontKind | 'direct' | 'hop' | 'modern', number[]>
  memoryKiB: number
}

/** Runs every front against each upstream; resolves with the Markdown table of medians. */
export async function gatewayBench(options: GatewayBenchOptions): Promise<string> {
  const log = options.log ?? ((line: string) => console.log(line))
  const results = new Map<BenchServer, UpstreamSamples>()
  const forever = Number.MAX_SAFE_INTEGER
  for (const upstream of UPSTREAMS) {
    const samples: UpstreamSamples = {
      rps: { bridge: [], supergateway: [] },
      modernRps: [],
      p50: { bridge: [], supergateway: [], direct: [], hop: [], modern: [] },
      memoryKiB: Number.NaN,
    }
    results.set(upstream, samples)
    const fronts = new Map<FrontKind, Front>()
    const direct = startStdio(upstream, 1)
    // The raw node:http floor, answering at once: what one HTTP hop costs this client, with no MCP work.
    const floor = await startHttp(RAW, 1)
    try {
      const hop = await modernCaller(floor.url)
      for (const kind of FRONTS) fronts.set(kind, await startFront(kind, upstream))
      const callers = new Map<FrontKind, Caller>()
      for (const [kind, front] of fronts) callers.set(kind, await legacyCaller(front.url))
      const bridge = fronts.get('bridge') as Front
      const modern = await modernCaller(bridge.url)
      // Warm-up: every path, untimed.
      for (const caller of [...callers.values(), modern])
        await calls(caller, IN_FLIGHT, forever, options.warmupSeconds)
      await stdioLatencies(direct, options.latencyCalls)
      for (let round = 1; round <= options.rounds; round++) {
        for (const kind of FRONTS) {
          const caller = callers.get(kind) as Caller
          const loaded = await calls(caller, IN_FLIGHT, forever, options.seconds)
          const sequential = await calls(caller, 1, options.latencyCalls, forever)
          samples.rps[kind].push(loaded.rate)
          samples.p50[kind].push(median(sequential.latencies))
          log(
            `round ${round}  gateway ${upstream.name.padEnd(8)} ${kind.padEnd(12)} ${IN_FLIGHT} in flight ${loaded.rate.toFixed(0)} calls/s  p50 ${median(sequential.latencies).toFixed(3)} ms`,
          )
        }
        const loaded = await calls(modern, IN_FLIGHT, forever, options.seconds)
        samples.modernRps.push(loaded.rate)
        samples.p50.modern.push(median((await calls(modern, 1, options.latencyCalls, forever)).latencies))
        const directP50 = median(await stdioLatencies(direct, options.latencyCalls))
        samples.p50.direct.push(directP50)
        samples.p50.hop.push(median((await calls(hop, 1, options.latencyCalls, forever)).latencies))
        log(
          `round ${round}  gateway ${upstream.name.padEnd(8)} bridge 2026-07-28 ${loaded.rate.toFixed(0)} calls/s  direct stdio p50 ${directP50.toFixed(3)} ms`,
        )
      }
      samples.memoryKiB = await memoryPerSession(upstream)
    } finally {
      await direct.stop()
      await floor.stop()
      for (const front of fronts.values()) await front.stop()
    }
  }
  const format = (value: number, digits = 0): string =>
    Number.isNaN(value) ? '—' : digits === 0 ? Math.round(value).toLocaleString('en') : value.toFixed(digits)
  const lines = [
    `| Gateway, stdio upstream | bridge calls/s (${IN_FLIGHT} in flight) | supergateway calls/s | bridge / supergateway | bridge 2026-07-28 calls/s | p50 direct stdio (ms) | p50 added: bridge (ms) | p50 added: bridge 2026-07-28 (ms) | p50 added: supergateway (ms) | p50 of one raw HTTP hop (ms) | KiB per open session (bridge) |`,
    `|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|`,
  ]
  for (const [upstream, samples] of results) {
    const bridge = median(samples.rps.bridge)
    const supergateway = median(samples.rps.supergateway)
    const direct = median(samples.p50.direct)
    lines.push(
      `| ${upstream.name} | ${format(bridge)} | ${format(supergateway)} | ${format(bridge / supergateway, 2)}x | ${format(median(samples.modernRps))} | ${format(direct, 3)} | ${format(median(samples.p50.bridge) - direct, 3)} | ${format(median(samples.p50.modern) - direct, 3)} | ${format(median(samples.p50.supergateway) - direct, 3)} | ${format(median(samples.p50.hop), 3)} | ${format(samples.memoryKiB, 1)} |`,
    )
  }
  lines.push(
    '',
    'Targets: bridge ≥ 2x supergateway at 32 in flight; bridge adds ≤ 0.3 ms to the direct stdio p50.',
    'One raw HTTP hop (a node:http server that answers at once, same client, sequential) is the least any HTTP front adds.',
    'Every answer is checked (id, sum); a wrong one, an HTTP error or a socket error stops the run.',
  )
  return lines.join('\n')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.argv.includes('--quick')
  gatewayBench({
    rounds: quick ? 1 : 5,
    seconds: quick ? 2 : 5,
    warmupSeconds: quick ? 1 : 2,
    latencyCalls: quick ? 500 : 2_000,
  })
    .then((table) => console.log(`\n${table}\n`))
    .catch((error: unknown) => {
      console.error(error)
      process.exit(1)
    })
}
