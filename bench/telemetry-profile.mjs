/**
 * What telemetry costs per tools/call, counted rather than timed (`npm run bench:telemetry-profile`): on a
 * shared machine req/s wander with the neighbours' load, instruction counts do not.
 *
 *   node bench/telemetry-profile.mjs                      instructions per call, telemetry off and on, in
 *                                                         toolwire's bench server and in the raw floor
 *   node bench/telemetry-profile.mjs --server=toolwire    one of them (`toolwire` or `raw`)
 *   node bench/telemetry-profile.mjs --runs=3 --only=on   one setting, the median of three runs
 *   node bench/telemetry-profile.mjs --keep=DIR --perf-map  … keeping the callgrind outputs for callgrind_annotate
 *                                                         (JIT code is named in /tmp/perf-PID.map)
 *   node bench/telemetry-profile.mjs --cpu-prof=DIR       the same load, the server under `node --cpu-prof`
 *                                                         instead (which functions are hot; timing, so noisy)
 *
 * The server is the benchmark's own (bench/.build/main.js: `add`, full validation, the security defaults;
 * TELEMETRY=on is the real OpenTelemetry SDK, the async-hooks context manager and W3C propagators, spans
 * batched to an exporter that drops them, a meter provider), alone in its process under
 * `valgrind --tool=callgrind`, as it runs alone under autocannon in the benchmark. This process is the load:
 * the benchmark's tools/call over keep-alive HTTP, `--concurrency` in flight (default 8). The server starts
 * and takes `--warmup` calls (default 30,000) uncounted, so start-up, loading and JIT warm-up stay out; then
 * `callgrind_control` turns counting on for `--calls` calls (default 2000) and off again: Ir / calls is one
 * call's instructions in the server. Needs valgrind, and `npm run build && npm run build:bench` first.
 *
 * The raw floor (bench/raw-server.mjs; TELEMETRY=on is bench/raw-telemetry.mjs: the same SDK setup, one span
 * and one measurement per request around the bare handler) shows what the SDK itself costs a server that
 * does nothing else: the best on / off any instrumented server can reach.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const SCRIPTS = {
  toolwire: fileURLToPath(new URL('.build/main.js', import.meta.url)),
  raw: fileURLToPath(new URL('raw-server.mjs', import.meta.url)),
}
const args = new Map(
  process.argv
    .slice(2)
    .filter((arg) => arg.startsWith('--'))
    .map((arg) => {
      const [key, ...value] = arg.slice(2).split('=')
      return [key, value.length > 0 ? value.join('=') : 'true']
    }),
)
const WARMUP = Number(args.get('warmup') ?? 30_000)
const CALLS = Number(args.get('calls') ?? 2000)
const CONCURRENCY = Number(args.get('concurrency') ?? 8)
const CPU_PROF = args.get('cpu-prof')
/** Keeps the callgrind outputs there (callgrind_annotate reads them), else they are removed. */
const KEEP = args.get('keep')
/** `--perf-map`: the server writes /tmp/perf-PID.map (node --perf-basic-prof), naming JIT code in the outputs. */
const PERF_MAP = args.has('perf-map')
/** `--only=on` or `--only=off` measures one setting; `--runs=N` measures each N times (the median is shown). */
const SETTINGS = args.has('only') ? [args.get('only') === 'on'] : [false, true]
const RUNS = Number(args.get('runs') ?? 1)
const SERVERS = args.has('server') ? [args.get('server')] : ['toolwire', 'raw']
for (const server of SERVERS)
  if (!(server in SCRIPTS)) throw new Error(`--server: toolwire or raw, not ${server}`)

const MESSAGE = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {
    name: 'add',
    arguments: { a: 2, b: 3 },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'toolwire-bench', version: '0.1.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
})
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'add',
  'content-length': String(Buffer.byteLength(MESSAGE)),
}

/** Sends `total` tools/call, `CONCURRENCY` at a time, and checks every answer. */
async function load(url, agent, total) {
  const send = () =>
    new Promise((resolve, reject) => {
      const req = request(url, { agent, method: 'POST', headers: HEADERS }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () =>
          res.statusCode === 200 && body.includes('"structuredContent":{"sum":5}')
            ? resolve()
            : reject(new Error(`wrong answer: HTTP ${res.statusCode} ${body.slice(0, 200)}`)),
        )
      })
      req.on('error', reject)
      req.end(MESSAGE)
    })
  let sent = 0
  const worker = async () => {
    while (sent < total) {
      sent++
      await send()
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, total) }, worker))
}

/**
 * Starts the bench server under `command`, warms it up, runs `measure(pid)` around the measured calls,
 * then stops it (SIGTERM: it closes and exits) and waits for it to end.
 */
async function serveAndLoad(server, command, commandArgs, telemetry, measure) {
  const env = { ...process.env, PORT: '0', TOOLS: '1' }
  if (telemetry) env.TELEMETRY = 'on'
  else delete env.TELEMETRY
  const child = spawn(command, [...commandArgs, SCRIPTS[server]], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  const url = await new Promise((resolve, reject) => {
    let stdout = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      const match = /on (http:\/\/\S+)/.exec(stdout)
      if (match) resolve(match[1])
    })
    exited.then(() => reject(new Error(`the server exited before listening: ${stderr}`)))
  })
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  try {
    await load(url, agent, WARMUP)
    await measure(child.pid, () => load(url, agent, CALLS))
  } finally {
    agent.destroy()
    child.kill('SIGTERM')
  }
  const { code, signal } = await exited
  if (code !== 0) throw new Error(`the server ended with ${code ?? signal}: ${stderr}`)
}

/** `callgrind_control` (through vgdb) switches the server's instruction counting on and off. */
const callgrindControl = (pid, ...command) =>
  new Promise((resolve, reject) => {
    execFile('callgrind_control', [...command, String(pid)], (error) => (error ? reject(error) : resolve()))
  })

/**
 * The server's instructions (Ir) per call under callgrind, counted only while the measured calls run: the
 * server starts and warms up uncounted (`--instr-atstart=no`), so start-up, loading and JIT warm-up stay out.
 */
async function instructionsPerCall(server, telemetry, run) {
  const dir = KEEP ?? mkdtempSync(join(tmpdir(), 'telemetry-profile-'))
  const out = join(dir, `callgrind.out.${server}.${telemetry ? 'on' : 'off'}.${run}`)
  try {
    await serveAndLoad(
      server,
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        `--callgrind-out-file=${out}`,
        process.execPath,
        ...(PERF_MAP ? ['--perf-basic-prof'] : []),
      ],
      telemetry,
      async (pid, calls) => {
        await callgrindControl(pid, '--instr=on')
        await calls()
        await callgrindControl(pid, '--instr=off')
      },
    )
    const totals = /^totals: (\d+)/m.exec(readFileSync(out, 'utf8'))
    if (!totals) throw new Error('no totals in the callgrind output')
    return Number(totals[1]) / CALLS
  } finally {
    if (KEEP === undefined) rmSync(dir, { recursive: true, force: true })
  }
}

if (CPU_PROF !== undefined) {
  for (const server of SERVERS)
    for (const telemetry of [false, true]) {
      const dir = join(CPU_PROF, server, telemetry ? 'on' : 'off')
      await serveAndLoad(
        server,
        process.execPath,
        ['--cpu-prof', `--cpu-prof-dir=${dir}`],
        telemetry,
        (_pid, calls) => calls(),
      )
      console.log(
        `${server}, telemetry ${telemetry ? 'on' : 'off'}: profile of ${WARMUP} + ${CALLS} calls in ${dir}`,
      )
    }
} else {
  for (const server of SERVERS) {
    const perCall = {}
    for (const telemetry of SETTINGS) {
      const setting = telemetry ? 'on' : 'off'
      const runs = []
      for (let run = 0; run < RUNS; run++) runs.push(await instructionsPerCall(server, telemetry, run))
      runs.sort((x, y) => x - y)
      perCall[setting] = runs[Math.floor(runs.length / 2)]
      const spread = RUNS > 1 ? ` (runs: ${runs.map(Math.round).join(', ')})` : ''
      console.log(
        `${server}, telemetry ${setting}: ${Math.round(perCall[setting])} instructions per tools/call in the server${spread}, ${CALLS} calls after ${WARMUP} warm-up, ${CONCURRENCY} in flight`,
      )
    }
    if (SETTINGS.length === 2)
      console.log(
        `${server}: telemetry adds ${Math.round(perCall.on - perCall.off)} instructions per call; off / on = ${(perCall.off / perCall.on).toFixed(2)}x`,
      )
  }
}
