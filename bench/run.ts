/**
 * `npm run bench [-- --quick]`: toolwire, the official SDK v2 and a raw node floor, measured in alternating
 * rounds (A B C, A B C …) from this separate process; medians are reported. Every server is checked for a
 * correct answer before it is loaded, and every counted HTTP answer must be a 2xx whose body equals the
 * checked one (autocannon `expectBody`); anything else is reported, never counted.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus } from 'node:os'
import autocannon from 'autocannon'
import {
  alone,
  type BenchServer,
  callMessage,
  callProblem,
  headersFor,
  type HttpRunning,
  listMessage,
  listProblem,
  peakRssMiB,
  pinApart,
  PROTOCOL_VERSION,
  post,
  SERVERS,
  startHttp,
  startStdio,
  type StdioRunning,
} from './harness.js'
import { AUTH_KINDS, type AuthKind, authRounds } from './auth.js'
import { clientBench } from './client.js'
import { gatewayBench } from './gateway.js'
import { DOCUMENTS, openAPILoads, openAPILoadTable } from './openapi-load.js'
import { listenTable } from './listen.js'
import { legacyCallMessage, legacyCallProblem, openLegacySession, parseAnswer } from './legacy.js'
import { telemetryRounds } from './telemetry.js'
import { guardRounds, guardTable } from './guards.js'

const quick = process.argv.includes('--quick')
/**
 * `--only=cold,http,legacy,stdio,auth,telemetry,guards,client,listen,gateway,openapi` runs a subset (for tuning); the
 * table then shows what was measured. `--no-pin` leaves the servers and the load generator unpinned (harness).
 */
const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice(7)
  .split(',')
const runs = (part: string): boolean => !only || only.includes(part)
const ROUNDS = quick ? 1 : 5
/** The machine's cores, counted before this process is pinned to some of them. */
const CORES = availableParallelism()
/** Servers on core 0, this process (the load generator) on the others, unless `--no-pin` (harness). */
const pinned = !process.argv.includes('--no-pin') && pinApart()
const SECONDS = quick ? 3 : 5
const WARMUP_SECONDS = quick ? 1 : 3
const CONNECTIONS = 50
const STDIO_CALLS = quick ? 2_000 : 20_000
const IN_FLIGHT = 32
const MANY = 1_000
const PAGE_SIZE = 1_000

interface Load {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly problems: number
}

const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN // not measured (e.g. the raw floor has no 2025-era leg)
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** The exact body a correct server returns for `message`, checked semantically first. */
async function expectedBody(
  running: HttpRunning,
  message: Record<string, unknown>,
  check: (parsed: unknown) => string | undefined,
  label: string,
): Promise<string> {
  const answer = await post(running.url, message, 60_000)
  const problem = answer.status === 200 ? check(JSON.parse(answer.body)) : `HTTP ${answer.status}`
  if (problem) throw new Error(`${label}: wrong answer before load: ${problem}`)
  return answer.body
}

async function load(
  url: string,
  message: Record<string, unknown>,
  body: string,
  seconds: number,
  headers: Record<string, string> = headersFor(message),
): Promise<Load> {
  return alone(url, () => loadAlone(url, message, body, seconds, headers))
}

async function loadAlone(
  url: string,
  message: Record<string, unknown>,
  body: string,
  seconds: number,
  headers: Record<string, string>,
): Promise<Load> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers,
    body: JSON.stringify(message),
    connections: CONNECTIONS,
    duration: seconds,
    expectBody: body,
    timeout: 30,
  })
  // Requests still queued in a slow server when the load stops would otherwise run during the next
  // measurement: one more answer on a fresh connection means the backlog is gone.
  if (headers['mcp-protocol-version'] === PROTOCOL_VERSION) await post(url, message, 120_000, headers)
  else await (await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) })).arrayBuffer()
  const correct = result['2xx'] - result.mismatches
  return {
    rps: correct / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    problems: result.non2xx + result.errors + result.timeouts + result.mismatches,
  }
}

/** Sends `calls` tools/calls with at most `inFlight` outstanding; every answer is checked. */
async function stdioRun(
  running: StdioRunning,
  calls: number,
  inFlight: number,
  firstId: number,
): Promise<number> {
  return alone(running.child, () => stdioRunAlone(running, calls, inFlight, firstId))
}

async function stdioRunAlone(
  running: StdioRunning,
  calls: number,
  inFlight: number,
  firstId: number,
): Promise<number> {
  const started = performance.now()
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < calls) {
      const index = next++
      const id = firstId + index
      const answer = await running.send(callMessage(id, index, 1))
      const problem = callProblem(answer, id, index + 1)
      if (problem) throw new Error(`stdio answer ${id} is wrong: ${problem}`)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  return calls / ((performance.now() - started) / 1000)
}

type Scenario = 'call' | 'callMany' | 'listMany'
const SCENARIOS: readonly { key: Scenario; tools: number; label: string }[] = [
  { key: 'call', tools: 1, label: `tools/call, ${CONNECTIONS} connections (req/s)` },
  { key: 'callMany', tools: MANY, label: `tools/call, ${MANY} tools registered (req/s)` },
  { key: 'listMany', tools: MANY, label: `tools/list, ${MANY} tools, page of ${PAGE_SIZE} (req/s)` },
]

interface Samples {
  http: Record<Scenario, Load[]>
  /** tools/call over a 2025-11-25 session (toolwire, SDK v2); the raw floor's plain call in the same rounds. */
  legacyCall: Load[]
  /** tools/call with bearer auth on (toolwire); the raw floor's no-auth loads from the same rounds. */
  auth: Record<AuthKind | 'plain', Load[]>
  /** tools/call with telemetry off and on (the SDK, no-op exporter), same rounds: toolwire and the raw floor. */
  telemetry: { off: Load[]; on: Load[] }
  stdioSeq: number[]
  stdioPar: number[]
  cold: number[]
  coldMany: number[]
  rss: number
  rssMany: number
}

async function main(): Promise<void> {
  const samples = new Map<BenchServer, Samples>()
  for (const server of SERVERS) {
    samples.set(server, {
      http: { call: [], callMany: [], listMany: [] },
      legacyCall: [],
      auth: { hs256: [], rs256: [], plain: [] },
      telemetry: { off: [], on: [] },
      stdioSeq: [],
      stdioPar: [],
      cold: [],
      coldMany: [],
      rss: 0,
      rssMany: 0,
    })
  }
  const get = (server: BenchServer): Samples => samples.get(server) as Samples

  console.log(`${quick ? 'Quick' : 'Full'} run: ${ROUNDS} rounds, ${SECONDS} s per HTTP measurement\n`)

  // Cold start: spawn to first correct tools/call, alternating, on a quiet machine.
  for (let round = 0; runs('cold') && round < Math.max(ROUNDS, 3); round++) {
    for (const server of SERVERS) {
      const running = await startHttp(server, 1)
      get(server).cold.push(running.coldStartMs)
      await running.stop()
      const lots = await startHttp(server, MANY)
      get(server).coldMany.push(lots.coldStartMs)
      await lots.stop()
    }
  }

  // HTTP: one server process per (server, registry size), kept for every round.
  const few = new Map<BenchServer, HttpRunning>()
  const many = new Map<BenchServer, HttpRunning>()
  const bodies = new Map<string, string>()
  try {
    for (const server of runs('http') || runs('legacy') ? SERVERS : []) {
      const one = await startHttp(server, 1)
      few.set(server, one)
      if (!runs('http')) continue
      const lots = await startHttp(server, MANY)
      many.set(server, lots)
      bodies.set(
        `${server.name}/call`,
        await expectedBody(one, callMessage(7), (m) => callProblem(m, 7, 5), server.name),
      )
      bodies.set(
        `${server.name}/callMany`,
        await expectedBody(lots, callMessage(7), (m) => callProblem(m, 7, 5), server.name),
      )
      bodies.set(
        `${server.name}/listMany`,
        await expectedBody(
          lots,
          listMessage(8),
          (m) => listProblem(m, 8, Math.min(MANY, PAGE_SIZE)),
          server.name,
        ),
      )
    }
    const target = (server: BenchServer, key: Scenario): HttpRunning =>
      (key === 'call' ? few : many).get(server) as HttpRunning
    const messageOf = (key: Scenario): Record<string, unknown> =>
      key === 'listMany' ? listMessage(8) : callMessage(7)

    for (const { key } of runs('http') ? SCENARIOS : []) {
      for (const server of SERVERS) {
        const body = bodies.get(`${server.name}/${key}`) as string
        await load(target(server, key).url, messageOf(key), body, WARMUP_SECONDS)
      }
    }
    for (let round = 1; runs('http') && round <= ROUNDS; round++) {
      for (const { key, label } of SCENARIOS) {
        for (const server of SERVERS) {
          const body = bodies.get(`${server.name}/${key}`) as string
          const result = await load(target(server, key).url, messageOf(key), body, SECONDS)
          get(server).http[key].push(result)
          const flag = result.problems > 0 ? `  (${result.problems} non-2xx/errors/mismatches)` : ''
          console.log(
            `round ${round}  ${label.padEnd(48)} ${server.name.padEnd(9)} ${result.rps.toFixed(0)}${flag}`,
          )
        }
      }
    }
    // Peak RSS under the tools/call load, read before the 2025-era rounds load the same processes (the raw
    // floor has no 2025-era leg, so a peak taken after them would not compare like with like).
    for (const server of runs('http') ? SERVERS : []) {
      get(server).rss = await peakRssMiB(few.get(server)?.child.pid)
      get(server).rssMany = await peakRssMiB(many.get(server)?.child.pid)
    }
    await legacyRounds(few, get)
  } finally {
    for (const running of [...few.values(), ...many.values()]) await running.stop()
  }

  if (runs('auth')) {
    const auth = await authRounds({ rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, load })
    const [toolwire, , raw] = SERVERS as [BenchServer, BenchServer, BenchServer]
    get(toolwire).auth = { hs256: auth.hs256, rs256: auth.rs256, plain: auth.plain }
    get(raw).auth = { hs256: auth.floor, rs256: auth.floor, plain: [] }
  }

  if (runs('telemetry')) {
    const [toolwire, , raw] = SERVERS as [BenchServer, BenchServer, BenchServer]
    const telemetry = await telemetryRounds({
      rounds: ROUNDS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      load,
    })
    get(toolwire).telemetry = { off: telemetry.off, on: telemetry.on }
    get(raw).telemetry = { off: telemetry.floorOff, on: telemetry.floorOn }
  }

  // stdio: one process per server, sequential then 32 in flight, alternating.
  const pipes = new Map<BenchServer, StdioRunning>()
  try {
    for (const server of runs('stdio') ? SERVERS : []) {
      const running = startStdio(server, 1)
      pipes.set(server, running)
      await stdioRun(running, Math.min(STDIO_CALLS, 2_000), IN_FLIGHT, 1) // check + warm up
    }
    let id = 1_000_000
    for (let round = 1; runs('stdio') && round <= ROUNDS; round++) {
      for (const server of SERVERS) {
        const running = pipes.get(server) as StdioRunning
        const seq = await stdioRun(running, STDIO_CALLS, 1, (id += STDIO_CALLS))
        const par = await stdioRun(running, STDIO_CALLS, IN_FLIGHT, (id += STDIO_CALLS))
        get(server).stdioSeq.push(seq)
        get(server).stdioPar.push(par)
        console.log(
          `round ${round}  stdio ${server.name.padEnd(9)} sequential ${seq.toFixed(0)}  ${IN_FLIGHT} in flight ${par.toFixed(0)}`,
        )
      }
    }
  } finally {
    for (const running of pipes.values()) await running.stop()
  }

  const apart = new Set(['client', 'gateway', 'listen', 'guards', 'openapi'])
  if (!only || only.some((part) => !apart.has(part))) report(samples, get)
  // What each guard costs: one guard changed per row, server CPU per call beside calls/s (bench/guards.ts).
  if (runs('guards')) {
    const rows = await guardRounds({ rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, load })
    const table = guardTable(rows)
    console.log(`\n${table}\n`)
    mkdirSync('results', { recursive: true })
    writeFileSync(`results/bench-guards-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${table}\n`)
  }
  // The client side: toolwire's client, SDK v2's and bare loops against one toolwire server (bench/client.ts).
  if (runs('listen')) {
    const table = await listenTable(quick ? 2_000 : 10_000)
    console.log(`\n${table}\n`)
    mkdirSync('results', { recursive: true })
    writeFileSync(`results/bench-listen-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${table}\n`)
  }

  if (runs('client')) {
    const table = await clientBench({ rounds: ROUNDS, seconds: quick ? 2 : 4, warmupSeconds: quick ? 1 : 2 })
    console.log(`\n${table}\n`)
    mkdirSync('results', { recursive: true })
    writeFileSync(`results/bench-client-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${table}\n`)
  }
  // The gateway: `toolwire bridge` and supergateway in front of a stdio upstream, and the upstream direct.
  if (runs('gateway')) {
    const table = await gatewayBench({
      rounds: ROUNDS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      latencyCalls: quick ? 500 : 2_000,
    })
    console.log(`\n${table}\n`)
    mkdirSync('results', { recursive: true })
    writeFileSync(`results/bench-gateway-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, `${table}\n`)
  }
  // Loading OpenAPI documents (bench/openapi-load.ts): GitHub's, the largest, every round; Figma's and
  // Netlify's once, for comparison. Each load in a fresh process.
  if (runs('openapi')) {
    const documents = DOCUMENTS.filter((document) => document.key !== 'petstore')
    const results = await openAPILoads(documents, (document) => (document.key === 'github' ? ROUNDS : 1))
    const table = openAPILoadTable(results)
    console.log(`\n${table}\n`)
    mkdirSync('results', { recursive: true })
    writeFileSync(
      `results/bench-openapi-load-${new Date().toISOString().replace(/[:.]/g, '-')}.md`,
      `${table}\n`,
    )
  }
}

/**
 * tools/call as a 2025-11-25 client sends it, after `initialize`: toolwire through its sealed session id,
 * SDK v2 through its default stateless legacy fallback. The raw floor speaks only 2026-07-28: in the same
 * rounds it is loaded with the plain tools/call, which is what a session's call is measured against.
 */
async function legacyRounds(
  few: ReadonlyMap<BenchServer, HttpRunning>,
  get: (server: BenchServer) => Samples,
): Promise<void> {
  if (!runs('legacy')) return
  interface Prepared {
    readonly url: string
    readonly message: Record<string, unknown>
    readonly headers: Record<string, string>
    readonly body: string
  }
  const prepared = new Map<BenchServer, Prepared>()
  for (const server of SERVERS) {
    const url = (few.get(server) as HttpRunning).url
    const floor = server === SERVERS[2]
    const message = floor ? callMessage(7) : legacyCallMessage(7)
    const headers = floor ? headersFor(message) : await openLegacySession(url)
    const answer = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) })
    const body = await answer.text()
    const parsed = answer.status === 200 ? parseAnswer(body) : undefined
    const problem =
      parsed === undefined
        ? `HTTP ${answer.status}`
        : floor
          ? callProblem(parsed, 7, 5)
          : legacyCallProblem(parsed, 7, 5)
    if (problem) throw new Error(`${server.name}: wrong 2025-11-25 answer before load: ${problem}`)
    prepared.set(server, { url, message, headers, body })
    await load(url, message, body, WARMUP_SECONDS, headers)
  }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const server of SERVERS) {
      const { url, message, headers, body } = prepared.get(server) as Prepared
      const result = await load(url, message, body, SECONDS, headers)
      get(server).legacyCall.push(result)
      const flag = result.problems > 0 ? `  (${result.problems} non-2xx/errors/mismatches)` : ''
      console.log(
        `round ${round}  ${LEGACY_LABEL.padEnd(48)} ${server.name.padEnd(9)} ${result.rps.toFixed(0)}${flag}`,
      )
    }
  }
}

const LEGACY_LABEL = `tools/call, 2025-11-25 session, ${CONNECTIONS} conn. (req/s)`

/**
 * toolwire / floor for each round of the tools/call and stdio rows. Each round loads toolwire and the floor
 * one after the other, so a round's own ratio is paired: it cancels the machine's slower drift (a shared
 * machine's speed moved 2x between rounds of one run).
 */
function roundByRound(toolwire: Samples, raw: Samples): string | undefined {
  const paired = (label: string, of: (s: Samples) => readonly number[]): string | undefined => {
    const floor = of(raw)
    const ratios = of(toolwire)
      .map((value, round) => value / (floor[round] ?? Number.NaN))
      .filter((value) => Number.isFinite(value))
    if (ratios.length === 0) return undefined
    return `${label} ${ratios.map((value) => value.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)}x)`
  }
  const pairs = [
    ...SCENARIOS.filter(({ key }) => key !== 'listMany').map(({ key, label }) =>
      paired(label.replace(/ \(req\/s\)$/, ''), (s) => s.http[key].map((l) => l.rps)),
    ),
    paired('stdio sequential', (s) => s.stdioSeq),
    paired(`stdio, ${IN_FLIGHT} in flight`, (s) => s.stdioPar),
  ].filter((line) => line !== undefined)
  return pairs.length > 0 ? `toolwire / raw round by round (same round): ${pairs.join('; ')}.` : undefined
}

function report(samples: Map<BenchServer, Samples>, get: (server: BenchServer) => Samples): void {
  const [toolwire, sdk, raw] = SERVERS as [BenchServer, BenchServer, BenchServer]
  type Row = {
    label: string
    value: (s: Samples) => number
    unit: string
    higherBetter: boolean
    target?: string
  }
  const rps = (key: Scenario) => (s: Samples) => median(s.http[key].map((l) => l.rps))
  const rows: Row[] = [
    ...SCENARIOS.map(({ key, label }) => ({
      label,
      value: rps(key),
      unit: '',
      higherBetter: true,
      target: key === 'listMany' ? '≥ 0.9x' : '≥ 0.85x',
    })),
    {
      label: LEGACY_LABEL,
      value: (s) => median(s.legacyCall.map((l) => l.rps)),
      unit: '',
      higherBetter: true,
      target: '≥ 0.7x (raw: plain call, same rounds)',
    },
    ...AUTH_KINDS.map(({ key, label }) => ({
      label: `${label}, ${CONNECTIONS} conn. (req/s)`,
      value: (s: Samples) => median(s.auth[key].map((l) => l.rps)),
      unit: '',
      higherBetter: true,
      target: '≥ 0.6x (raw: no auth)',
    })),
    {
      label: `tools/call, telemetry off, ${CONNECTIONS} conn. (req/s)`,
      value: (s) => median(s.telemetry.off.map((l) => l.rps)),
      unit: '',
      higherBetter: true,
      target: 'the tools/call row, within noise',
    },
    {
      label: `tools/call, telemetry on (SDK, no-op exporter), ${CONNECTIONS} conn. (req/s)`,
      value: (s) => median(s.telemetry.on.map((l) => l.rps)),
      unit: '',
      higherBetter: true,
      target: '≥ 0.85x of telemetry off (raw: its own span and measurement)',
    },
    {
      label: `stdio, ${STDIO_CALLS.toLocaleString('en')} sequential calls (calls/s)`,
      value: (s) => median(s.stdioSeq),
      unit: '',
      higherBetter: true,
      target: '≥ 0.9x',
    },
    {
      label: `stdio, ${STDIO_CALLS.toLocaleString('en')} calls, ${IN_FLIGHT} in flight (calls/s)`,
      value: (s) => median(s.stdioPar),
      unit: '',
      higherBetter: true,
      target: '≥ 0.9x',
    },
    {
      label: 'tools/call latency p50 (ms, whole)',
      value: (s) => median(s.http.call.map((l) => l.p50)),
      unit: '',
      higherBetter: false,
    },
    {
      label: 'tools/call latency p99 (ms, whole)',
      value: (s) => median(s.http.call.map((l) => l.p99)),
      unit: '',
      higherBetter: false,
      target: '≤ 1.5x',
    },
    {
      label: 'peak RSS under tools/call load, 1 tool (MiB)',
      value: (s) => s.rss,
      unit: '',
      higherBetter: false,
      target: '≤ 1.3x',
    },
    {
      label: `peak RSS under tools/call load, ${MANY} tools (MiB)`,
      value: (s) => s.rssMany,
      unit: '',
      higherBetter: false,
    },
    {
      label: 'cold start to first response (ms)',
      value: (s) => median(s.cold),
      unit: '',
      higherBetter: false,
      target: '≤ 1.5x',
    },
    {
      label: `cold start to first response, ${MANY} tools (ms)`,
      value: (s) => median(s.coldMany),
      unit: '',
      higherBetter: false,
      target: '≤ 1.5x',
    },
  ]
  // Latencies come in whole milliseconds, so a 0 ms floor leaves no ratio to state.
  const ratio = (value: number, floor: number): string =>
    floor > 0 && !Number.isNaN(value) ? `${(value / floor).toFixed(2)}x` : '—'
  const format = (value: number): string =>
    Number.isNaN(value) ? '—' : value >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(1)
  const lines = [
    `| Measure | toolwire | SDK v2 | raw node | toolwire / raw | SDK v2 / raw | target |`,
    `|---|--:|--:|--:|--:|--:|---|`,
  ]
  for (const row of rows) {
    const [t, s, r] = [row.value(get(toolwire)), row.value(get(sdk)), row.value(get(raw))]
    lines.push(
      `| ${row.label} | ${format(t)} | ${format(s)} | ${format(r)} | ${ratio(t, r)} | ${ratio(s, r)} | ${row.target ?? ''} |`,
    )
  }
  const legacyRatio = ratio(
    median(get(toolwire).legacyCall.map((l) => l.rps)),
    median(get(sdk).legacyCall.map((l) => l.rps)),
  )
  const authOf = (key: AuthKind | 'plain'): number => median(get(toolwire).auth[key].map((l) => l.rps))
  const authCost = `Bearer auth, same rounds: toolwire without auth ${format(authOf('plain'))} req/s; with HS256 ${ratio(authOf('hs256'), authOf('plain'))} and RS256 ${ratio(authOf('rs256'), authOf('plain'))} of that.`
  const telemetryOf = (server: BenchServer, key: 'off' | 'on'): number =>
    median(get(server).telemetry[key].map((l) => l.rps))
  const telemetryCost = `OpenTelemetry, same rounds: toolwire with telemetry off ${format(telemetryOf(toolwire, 'off'))} req/s; on (the SDK, spans batched to a no-op exporter) ${ratio(telemetryOf(toolwire, 'on'), telemetryOf(toolwire, 'off'))} of that (target ≥ 0.85x). The raw floor with the same SDK work per request (one span, one measurement): ${ratio(telemetryOf(raw, 'on'), telemetryOf(raw, 'off'))} of its own ${format(telemetryOf(raw, 'off'))} req/s.`
  const problems = SERVERS.map((server) => {
    // The raw floor's auth rows share one set of loads: counted once.
    const auth = new Set(Object.values(get(server).auth))
    const total = [
      ...Object.values(get(server).http),
      get(server).legacyCall,
      ...auth,
      get(server).telemetry.off,
      get(server).telemetry.on,
    ]
      .flat()
      .reduce((sum, l) => sum + l.problems, 0)
    return `${server.name}: ${total}`
  }).join(', ')
  const roundRatios = roundByRound(get(toolwire), get(raw))
  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  const machine = `${CORES} cores, ${cpu}, node ${process.version}, ${quick ? 'quick' : 'full'} run: medians of ${ROUNDS} alternating round(s) (cold start: ${Math.max(ROUNDS, 3)}), ${SECONDS} s each over HTTP; ${pinned ? 'each server on core 0 and the load generator on the others (taskset)' : 'servers and load generator where the scheduler puts them'}, the other servers paused while one is measured`
  const table = [
    ...lines,
    '',
    ...(roundRatios ? [roundRatios] : []),
    `tools/call over a 2025-11-25 session: toolwire / SDK v2 = ${legacyRatio}.`,
    authCost,
    telemetryCost,
    `Non-2xx answers, socket errors, timeouts and body mismatches under load (never counted as served): ${problems}.`,
    `Machine: ${machine}.`,
  ].join('\n')
  console.log(`\n${table}\n`)
  mkdirSync('results', { recursive: true })
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  writeFileSync(`results/bench-${stamp}.md`, `${table}\n`)
  writeFileSync(
    `results/bench-${stamp}.json`,
    JSON.stringify(
      { machine, quick, samples: Object.fromEntries([...samples].map(([server, s]) => [server.name, s])) },
      null,
      2,
    ),
  )
  console.log(`Written to results/bench-${stamp}.md and .json`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
