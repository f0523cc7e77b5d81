/**
 * Speed measured where it does not scatter (`npm run bench:instructions`): requests per second on a shared
 * machine swing with the neighbours' load, the instructions a call costs the server do not. Each row runs
 * toolwire's server and the raw node:http floor, one after the other in this run, each alone in its process
 * under `valgrind --tool=callgrind --instr-atstart=no`: the server starts and takes `--warmup` calls uncounted
 * (start-up, loading and JIT warm-up stay out; 10,000 by default, because after 2,000 V8's optimising compiler
 * was still at work, about a quarter of the floor's and two fifths of toolwire's counted instructions),
 * `callgrind_control --instr=on` counts the `--calls` measured ones and `--instr=off` stops; Ir / calls is one call's instructions in the server. This process is
 * the load, `--concurrency` calls in flight, and checks every answer.
 *
 * Rows (the floor is bench/raw-server.mjs or bench/raw-listen-server.mjs):
 * - defaults: bench/.build/main.js with SECURITY=defaults, `defineServer` with no `security` option: rate
 *   limits and the concurrency cap on, as a user gets them. The per-address limits (120 tool calls a minute)
 *   are kept by the load: each in-flight worker opens a fresh keep-alive connection from a new loopback address
 *   every 100 calls. Every HTTP row uses this same pattern, toolwire's and the floor's alike.
 * - off: the same server with `rateLimit: false, maxConcurrentCalls: false`, as benchmarked before.
 * - tools1000: defaults, 1,000 tools registered.
 * - stdio: tools/call over stdio, rate limits off (over stdio the principal is the transport: the defaults'
 *   120 tool calls a minute would refuse the load).
 * - listen: `--streams` open subscriptions/listen streams (10 per address); one tool-list change at a time
 *   (a tools/call of `touch`), each waited for on every stream: instructions per change delivered to them all.
 *   Beside it, bytes per open stream: heap snapshots of both servers with 10 × `--streams` streams open and
 *   with twice as many, not under callgrind (bench/listen-memory.mjs).
 * - cold, cold1000: cold start, spawn to the first answered call, with 1 and 1,000 tools: the whole process
 *   counted from its first instruction (node's own start-up included, as in the floor's), one tools/call over
 *   stdio and then the end of input, on which both servers exit once they have answered; the median of 5,
 *   V8's hash-seed set-up left out (random in cost: HASH_SEED_FUNCTION), with where the rest goes (COLD_PARTS).
 *
 * Every server starts without NODE_EXTRA_CA_CERTS and NODE_OPTIONS (START_NOISE): work at start-up that
 * neither server asked for, and that would swamp a cold start.
 *
 * Needs `npm run build && npm run build:bench` (the npm script does both) and valgrind.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  annotateInclusive,
  callgrindControl,
  COLD_PARTS,
  compileInstructions,
  HASH_SEED_FUNCTION,
  inclusiveIn,
  parseArgs,
  serverEnvironment,
  totalInstructions,
  USAGE,
  valgrindVersion,
} from './callgrind.mjs'
import { guardCostLines } from './guard-costs.mjs'
import { parsePerfMap, profileDifference, selfInstructions } from './jit-profile.mjs'
import { listenMemory } from './listen-memory.mjs'

const options = (() => {
  try {
    return parseArgs(process.argv.slice(2))
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error))
    process.exit(2)
  }
})()
if (options.help) {
  console.log(USAGE)
  process.exit(0)
}
const valgrind = valgrindVersion()
if (valgrind === undefined) {
  console.log(
    'bench:instructions skipped: valgrind is not installed (apt-get install valgrind), nothing measured.',
  )
  process.exit(0)
}

const here = (file) => fileURLToPath(new URL(file, import.meta.url))
const TOOLWIRE = here('.build/main.js')
const TOOLWIRE_LISTEN = here('.build/listen.js')
const RAW = here('raw-server.mjs')
const RAW_LISTEN = here('raw-listen-server.mjs')
const PROTOCOL = '2026-07-28'
const META = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL,
  'io.modelcontextprotocol/clientInfo': { name: 'toolwire-bench', version: '0.1.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}
/** Calls per connection (and loopback address) in the HTTP rows: under the defaults' 120 a minute. */
const PER_ADDRESS = 100

const callMessage = (id) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'add', arguments: { a: 2, b: 3 }, _meta: META },
  })
const headers = (method, name, body) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL,
  'mcp-method': method,
  ...(name !== undefined && { 'mcp-name': name }),
  'content-length': String(Buffer.byteLength(body)),
})

let addressCount = 0
/** A fresh loopback address (127.2.0.0/16 and up): the server sees a new client. */
function nextAddress(block) {
  const n = addressCount++
  return `127.${block}.${(n >> 8) & 255}.${n & 255}`
}

function post(url, agent, localAddress, method, name, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent, localAddress, method: 'POST', headers: headers(method, name, body) },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode, text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** `total` tools/call of `add`, `concurrency` in flight, a new connection and address every PER_ADDRESS. */
async function httpCalls(url, total) {
  let sent = 0
  const worker = async () => {
    let agent
    let address = ''
    let used = PER_ADDRESS
    try {
      while (sent < total) {
        if (used === PER_ADDRESS) {
          agent?.destroy()
          agent = new Agent({ keepAlive: true, maxSockets: 1 })
          address = nextAddress(2)
          used = 0
        }
        const id = ++sent
        used++
        const { status, text } = await post(url, agent, address, 'tools/call', 'add', callMessage(id))
        if (
          status !== 200 ||
          !text.includes('"structuredContent":{"sum":5}') ||
          !text.includes(`"id":${id},`)
        )
          throw new Error(`wrong answer to call ${id}: HTTP ${status} ${text.slice(0, 300)}`)
      }
    } finally {
      agent?.destroy()
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, total) }, worker))
}

/** Starts `script` under callgrind (counting off) and resolves its process and, for HTTP, its URL. */
async function startServer(script, scriptArgs, env, out, stdio) {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      ...(options.profile ? ['--perf-basic-prof'] : []),
      script,
      ...scriptArgs,
    ],
    { env: serverEnvironment(process.env, env), stdio: [stdio ? 'pipe' : 'ignore', 'pipe', 'pipe'] },
  )
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  const ended = async () => {
    const { code, signal } = await exited
    // The listen floor has no SIGTERM handler: ended by the signal, callgrind still writes its counts.
    if (code !== 0 && signal !== 'SIGTERM')
      throw new Error(`${script} ended with ${code ?? signal}: ${stderr}`)
  }
  if (stdio) return { child, url: undefined, ended }
  const url = await new Promise((resolve, reject) => {
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk
      const match = /on (http:\/\/\S+)/.exec(stdout)
      if (match) resolve(match[1])
    })
    void exited.then(() => reject(new Error(`${script} exited before listening: ${stderr}`)))
  })
  return { child, url, ended }
}

/**
 * Runs one server under callgrind: warm-up, then `measure()` counted; returns the instructions counted and,
 * of those, the ones an optimising compile that fell inside the count spent (`compileInstructions`).
 */
async function counted(name, script, scriptArgs, env, stdio, drive) {
  const dir = options.keep ?? mkdtempSync(join(tmpdir(), 'bench-instructions-'))
  if (options.keep) mkdirSync(dir, { recursive: true })
  const out = join(dir, `callgrind.out.${name}`)
  try {
    const server = await startServer(script, scriptArgs, env, out, stdio)
    try {
      await drive(server, async (measured) => {
        await callgrindControl(server.child.pid, '--instr=on')
        await measured()
        await callgrindControl(server.child.pid, '--instr=off')
      })
    } finally {
      if (stdio) server.child.stdin.end()
      else server.child.kill('SIGTERM')
    }
    await server.ended()
    const text = readFileSync(out, 'utf8')
    return {
      counted: totalInstructions(text),
      compile: compileInstructions(out),
      ...(options.profile && { profile: profileOf(text, server.child.pid) }),
    }
  } finally {
    if (options.keep === undefined) rmSync(dir, { recursive: true, force: true })
  }
}

/** Self instructions by function, JIT code named from the map node wrote for the process (then removed). */
function profileOf(text, pid) {
  // V8 writes the map to /tmp whatever TMPDIR says.
  const map = `/tmp/perf-${pid}.map`
  try {
    return selfInstructions(text, parsePerfMap(readFileSync(map, 'utf8')))
  } finally {
    rmSync(map, { force: true })
  }
}

/** A count per call (or per change): everything counted, and that without the compile that fell inside it. */
const per =
  (units) =>
  ({ counted, compile, profile }) => ({
    counted: counted / units,
    steady: (counted - compile) / units,
    ...(profile && { profile, units }),
  })

const httpRow = (name, script, env) =>
  counted(name, script, [], { PORT: '0', ...env }, false, async ({ url }, count) => {
    await httpCalls(url, options.warmup)
    await count(() => httpCalls(url, options.calls))
  }).then(per(options.calls))

/** tools/call over stdio, `concurrency` in flight, every answer matched to its id and checked. */
const stdioRow = (name, script, env = {}) =>
  counted(name, script, ['--stdio'], { TOOLS: '1', ...env }, true, async ({ child }, count) => {
    const waiting = new Map()
    let rest = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      const lines = (rest + chunk).split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) {
        if (!line) continue
        const answer = JSON.parse(line)
        const settle = waiting.get(answer.id)
        waiting.delete(answer.id)
        if (!settle) throw new Error(`an answer to no call: ${line.slice(0, 300)}`)
        settle(answer?.result?.structuredContent?.sum === 5 ? undefined : line)
      }
    })
    let id = 0
    const calls = async (total) => {
      let sent = 0
      const worker = async () => {
        while (sent < total) {
          sent++
          const callId = ++id
          const problem = await new Promise((resolve) => {
            waiting.set(callId, resolve)
            child.stdin.write(callMessage(callId) + '\n')
          })
          if (problem !== undefined)
            throw new Error(`wrong answer to call ${callId}: ${problem.slice(0, 300)}`)
        }
      }
      await Promise.all(Array.from({ length: Math.min(options.concurrency, total) }, worker))
    }
    await calls(options.warmup)
    await count(() => calls(options.calls))
  }).then(per(options.calls))

/** Opens `streams` listen streams (10 per address), then makes changes one at a time, each seen by all. */
const listenRow = (name, script) =>
  counted(name, script, [], { STREAMS: String(options.streams) }, false, async ({ url }, count) => {
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
    const seen = []
    let delivered = 0
    let wake = () => {}
    const listen = {
      jsonrpc: '2.0',
      id: 0,
      method: 'subscriptions/listen',
      params: { _meta: META, notifications: { toolsListChanged: true } },
    }
    const requests = []
    try {
      let streamAddress = ''
      await Promise.all(
        Array.from({ length: options.streams }, (_, index) => {
          if (index % 10 === 0) streamAddress = nextAddress(3)
          seen.push(0)
          const body = JSON.stringify({ ...listen, id: index + 1 })
          return new Promise((resolve, reject) => {
            const req = request(url, {
              agent,
              localAddress: streamAddress,
              method: 'POST',
              headers: { ...headers('subscriptions/listen', undefined, body) },
            })
            requests.push(req)
            req.on('error', reject)
            req.on('response', (res) => {
              if (res.statusCode !== 200) reject(new Error(`listen ${index}: HTTP ${res.statusCode}`))
              let buffer = ''
              res.setEncoding('utf8')
              res.on('data', (chunk) => {
                const events = (buffer + chunk).split('\n\n')
                buffer = events.pop() ?? ''
                for (const event of events) {
                  if (event.includes('notifications/subscriptions/acknowledged')) resolve()
                  if (event.includes('notifications/tools/list_changed')) {
                    seen[index]++
                    delivered++
                    wake()
                  }
                }
              })
            })
            req.end(body)
          })
        }),
      )
      const touchAgent = new Agent({ keepAlive: true, maxSockets: 1 })
      const touchAddress = nextAddress(4)
      let changes = 0
      const change = async () => {
        changes++
        const expected = changes * options.streams
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: changes,
          method: 'tools/call',
          params: { name: 'touch', arguments: {}, _meta: META },
        })
        const all = new Promise((resolve) => {
          wake = () => delivered >= expected && resolve()
          wake()
        })
        const { status, text } = await post(url, touchAgent, touchAddress, 'tools/call', 'touch', body)
        if (status !== 200 || !text.includes('"result"'))
          throw new Error(`touch ${changes}: HTTP ${status} ${text}`)
        await all
        if (delivered !== expected)
          throw new Error(`change ${changes}: ${delivered} notifications, not ${expected}`)
      }
      const changesOf = async (total) => {
        for (let index = 0; index < total; index++) await change()
      }
      await changesOf(options.changes)
      await count(() => changesOf(options.changes))
      if (seen.some((n) => n !== changes)) throw new Error('a stream missed a change')
      touchAgent.destroy()
    } finally {
      for (const req of requests) req.destroy()
      agent.destroy()
    }
  }).then(per(options.changes))

/**
 * Cold start counted: the server under callgrind from its first instruction, one tools/call written to its
 * stdin and the input closed at once; it answers and exits. Median of `options.coldRuns` processes.
 */
async function coldRow(name, script, tools) {
  const counts = []
  for (let run = 0; run < options.coldRuns; run++) {
    const dir = options.keep ?? mkdtempSync(join(tmpdir(), 'bench-instructions-'))
    if (options.keep) mkdirSync(dir, { recursive: true })
    const out = join(dir, `callgrind.out.${name}-${run}`)
    try {
      const child = spawn(
        'valgrind',
        ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath, script, '--stdio'],
        { env: serverEnvironment(process.env, { TOOLS: String(tools) }), stdio: ['pipe', 'pipe', 'pipe'] },
      )
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk))
      child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
      const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
      child.stdin.end(`${callMessage(1)}\n`)
      const code = await exited
      const answer = JSON.parse(stdout.split('\n')[0] || 'null')
      if (code !== 0 || answer?.id !== 1 || answer?.result?.structuredContent?.sum !== 5)
        throw new Error(`${name}: exit ${code}, answer ${stdout.slice(0, 300)} ${stderr}`)
      const annotated = annotateInclusive(out)
      const counted = totalInstructions(readFileSync(out, 'utf8'))
      const steady = counted - inclusiveIn(annotated, HASH_SEED_FUNCTION)
      const parts = Object.fromEntries(
        Object.entries(COLD_PARTS).map(([part, fn]) => [part, inclusiveIn(annotated, fn)]),
      )
      counts.push({ counted, steady, parts })
    } finally {
      if (options.keep === undefined) rmSync(dir, { recursive: true, force: true })
    }
  }
  // Cold start is the whole process, and its compiles are part of starting: only the hash-seed set-up,
  // random in cost, is left out (HASH_SEED_FUNCTION).
  return counts.sort((a, b) => a.steady - b.steady)[Math.floor(counts.length / 2)]
}

const ROW_SPECS = {
  defaults: {
    label: 'HTTP tools/call, defaults (rate limits and concurrency cap on)',
    target: 1.1,
    toolwire: () => httpRow('toolwire-defaults', TOOLWIRE, { TOOLS: '1', SECURITY: 'defaults' }),
    floor: 'http1',
  },
  off: {
    label: 'HTTP tools/call, rate limits and cap off (as benchmarked before)',
    target: 1.05,
    toolwire: () => httpRow('toolwire-off', TOOLWIRE, { TOOLS: '1' }),
    floor: 'http1',
  },
  tools1000: {
    label: 'HTTP tools/call, 1,000 tools registered (defaults)',
    target: 1.08,
    toolwire: () => httpRow('toolwire-1000', TOOLWIRE, { TOOLS: '1000', SECURITY: 'defaults' }),
    floor: 'http1000',
  },
  stdio: {
    label: 'stdio tools/call (rate limits off)',
    target: 1.1,
    toolwire: () => stdioRow('toolwire-stdio', TOOLWIRE),
    floor: 'stdio',
  },
  listen: {
    label: `listen fan-out: one change to ${options.streams} streams`,
    target: 1.15,
    toolwire: () => listenRow('toolwire-listen', TOOLWIRE_LISTEN),
    floor: 'listen',
  },
  cold: {
    label: 'cold start to the first answer, 1 tool (whole process, over stdio)',
    target: 1.3,
    toolwire: () => coldRow('toolwire-cold-1', TOOLWIRE, 1),
    floor: 'cold1',
  },
  cold1000: {
    label: 'cold start to the first answer, 1,000 tools (whole process, over stdio)',
    target: 1.3,
    toolwire: () => coldRow('toolwire-cold-1000', TOOLWIRE, 1000),
    floor: 'cold1000',
  },
}
const FLOORS = {
  http1: () => httpRow('raw-1', RAW, { TOOLS: '1' }),
  http1000: () => httpRow('raw-1000', RAW, { TOOLS: '1000' }),
  stdio: () => stdioRow('raw-stdio', RAW),
  listen: () => listenRow('raw-listen', RAW_LISTEN),
  cold1: () => coldRow('raw-cold-1', RAW, 1),
  cold1000: () => coldRow('raw-cold-1000', RAW, 1000),
}

const floors = {}
const rows = []
for (const key of options.only) {
  const spec = ROW_SPECS[key]
  if (floors[spec.floor] === undefined) {
    process.stderr.write(`floor for ${key} … `)
    floors[spec.floor] = await FLOORS[spec.floor]()
    process.stderr.write(`${Math.round(floors[spec.floor].counted)}\n`)
  }
  process.stderr.write(`toolwire ${key} … `)
  const toolwire = await spec.toolwire()
  process.stderr.write(`${Math.round(toolwire.counted)}\n`)
  const floor = floors[spec.floor]
  // The target is judged without the compile: it is a one-off of warming up that lands in some counts.
  const ratio = toolwire.steady / floor.steady
  rows.push({
    key,
    label: spec.label,
    toolwire: toolwire.steady,
    floor: floor.steady,
    ratio,
    counted: { toolwire: toolwire.counted, floor: floor.counted, ratio: toolwire.counted / floor.counted },
    ...(toolwire.parts && { parts: { toolwire: toolwire.parts, floor: floor.parts } }),
    ...(toolwire.profile &&
      floor.profile && {
        profile: profileDifference(toolwire.profile, floor.profile, 1).map(([name, difference, a, b]) => ({
          name,
          difference: difference / toolwire.units,
          toolwire: a / toolwire.units,
          floor: b / floor.units,
        })),
      }),
    target: spec.target,
    met: ratio <= spec.target,
  })
}

/**
 * What each default guard costs (`--guards`): the 1-tool servers again with the guards switched off one by one
 * (bench/guard-costs.mjs). The floors and the defaults, off and stdio counts of this run are reused.
 */
let guardLines = []
let guardCounts
if (options.guards) {
  const steady = async (label, make) => {
    process.stderr.write(`${label} … `)
    const { steady: n } = await make()
    process.stderr.write(`${Math.round(n)}\n`)
    return n
  }
  const rowOf = (key) => rows.find((row) => row.key === key)?.toolwire
  const variant =
    (name, GUARD_VARIANT, env = {}) =>
    () =>
      httpRow(name, TOOLWIRE, { TOOLS: '1', ...(GUARD_VARIANT && { GUARD_VARIANT }), ...env })
  const ALL_OFF = 'timeout and output guard off+depth check unreachable'
  floors.http1 ??= await FLOORS.http1()
  floors.stdio ??= await FLOORS.stdio()
  const counts = {
    http: {
      floor: floors.http1.steady,
      defaults: rowOf('defaults') ?? (await steady('toolwire defaults', ROW_SPECS.defaults.toolwire)),
      off: rowOf('off') ?? (await steady('toolwire off', ROW_SPECS.off.toolwire)),
      timeoutOff: await steady('toolwire, timeout off', variant('toolwire-timeout-off', 'timeout off')),
      outputOff: await steady(
        'toolwire, output guard off',
        variant('toolwire-output-off', 'output guard off'),
      ),
      depthOff: await steady(
        'toolwire, depth pre-check off',
        variant('toolwire-depth-off', 'depth check unreachable'),
      ),
      schemasOff: await steady(
        'toolwire, schemas off',
        variant('toolwire-schemas-off', undefined, { SCHEMAS: 'open' }),
      ),
      bare: await steady('toolwire, all four off', variant('toolwire-bare', ALL_OFF, { SCHEMAS: 'open' })),
    },
    stdio: {
      floor: floors.stdio.steady,
      off: rowOf('stdio') ?? (await steady('toolwire stdio', ROW_SPECS.stdio.toolwire)),
      bare: await steady('toolwire stdio, all four off', () =>
        stdioRow('toolwire-stdio-bare', TOOLWIRE, { GUARD_VARIANT: ALL_OFF, SCHEMAS: 'open' }),
      ),
    },
  }
  guardCounts = counts
  guardLines = ['', ...guardCostLines(counts, ROW_SPECS.defaults.target)]
}

/** Bytes per open listen stream, counted in heap snapshots, for toolwire and the floor. */
const KINDS_SHOWN = 12
const memory = []
if (options.only.includes('listen')) {
  const streams = options.streams * 10
  let memoryAddresses = 0
  const shape = {
    listenBody: (id) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: { _meta: META, notifications: { toolsListChanged: true } },
      }),
    headers: (body) => headers('subscriptions/listen', undefined, body),
    // 10 streams per loopback address, as the fan-out row opens them.
    address: () => {
      const n = Math.floor(memoryAddresses++ / 10)
      return `127.5.${(n >> 8) & 255}.${n & 255}`
    },
  }
  process.stderr.write(`bytes per listen stream (${streams} and ${streams * 2} open) … `)
  const floor = await listenMemory(RAW_LISTEN, streams, shape)
  const toolwire = await listenMemory(TOOLWIRE_LISTEN, streams, shape)
  process.stderr.write(`${Math.round(toolwire.bytesPerStream)} / ${Math.round(floor.bytesPerStream)}\n`)
  const ratio = toolwire.bytesPerStream / floor.bytesPerStream
  memory.push({ streams, toolwire, floor, ratio, target: 1.15, met: ratio <= 1.15 })
}

const fmt = (n) => Math.round(n).toLocaleString('en')
const PART_LABELS = {
  parse: 'modules parsed',
  lazyCompile: 'functions compiled on first call',
  regExpCompile: 'regular expressions compiled',
}
/** Where the cold starts went, toolwire beside the floor: the profile behind the cold rows. */
function coldParts(measured) {
  const cold = measured.filter((row) => row.parts)
  if (cold.length === 0) return []
  const millions = (n) => `${(n / 1e6).toFixed(1)} M`
  return [
    '',
    '| cold start, of which (toolwire / floor) | ' + Object.values(PART_LABELS).join(' | ') + ' | the rest |',
    '| --- |' + ' ---: |'.repeat(Object.keys(PART_LABELS).length + 1),
    ...cold.map((row) => {
      const rest = (parts, total) => total - Object.values(parts).reduce((sum, n) => sum + n, 0)
      const cells = Object.keys(PART_LABELS).map(
        (part) => `${millions(row.parts.toolwire[part])} / ${millions(row.parts.floor[part])}`,
      )
      return `| ${row.key} | ${cells.join(' | ')} | ${millions(rest(row.parts.toolwire, row.toolwire))} / ${millions(rest(row.parts.floor, row.floor))} |`
    }),
  ]
}
const table = [
  '| instructions per call (per change for the fan-out, per process for cold start), an optimising compile (cold start: the hash-seed set-up) left out | toolwire | raw node floor | ratio | target | met | as counted: toolwire / floor / ratio |',
  '| --- | ---: | ---: | ---: | ---: | --- | ---: |',
  ...rows.map(
    (row) =>
      `| ${row.label} | ${fmt(row.toolwire)} | ${fmt(row.floor)} | ${row.ratio.toFixed(3)}x | ≤ ${row.target.toFixed(2)}x | ${row.met ? 'yes' : 'no'} | ${fmt(row.counted.toolwire)} / ${fmt(row.counted.floor)} / ${row.counted.ratio.toFixed(3)}x |`,
  ),
  ...coldParts(rows),
  ...guardLines,
  ...(memory.length === 0
    ? []
    : [
        '',
        '| heap bytes per open listen stream (snapshots) | toolwire | raw node floor | ratio | target | met |',
        '| --- | ---: | ---: | ---: | ---: | --- |',
        ...memory.map(
          (row) =>
            `| listen stream, ${fmt(row.streams)} more open | ${fmt(row.toolwire.bytesPerStream)} | ${fmt(row.floor.bytesPerStream)} | ${row.ratio.toFixed(3)}x | ≤ ${row.target.toFixed(2)}x | ${row.met ? 'yes' : 'no'} |`,
        ),
        '',
        'Where they differ most, bytes per stream by object kind (toolwire, floor):',
        ...memory.flatMap((row) => {
          const { kinds } = row.toolwire
          const floorKinds = row.floor.kinds
          return [...new Set([...kinds.keys(), ...floorKinds.keys()])]
            .map((kind) => [kind, kinds.get(kind) ?? 0, floorKinds.get(kind) ?? 0])
            .sort((a, b) => Math.abs(b[1] - b[2]) - Math.abs(a[1] - a[2]))
            .slice(0, KINDS_SHOWN)
            .map(([kind, ours, theirs]) => `  ${kind}: ${fmt(ours)}, ${fmt(theirs)}`)
        }),
      ]),
  ...rows
    .filter((row) => row.profile)
    .flatMap((row) => [
      '',
      `Where a ${row.key} call's instructions differ most from the floor's (self, per call; toolwire − floor = difference):`,
      ...row.profile.map(
        (entry) =>
          `  ${fmt(entry.difference).padStart(7)}  ${fmt(entry.toolwire).padStart(7)} − ${fmt(entry.floor).padStart(7)}  ${entry.name.slice(0, 110)}`,
      ),
    ]),
].join('\n')
const note = `${options.calls.toLocaleString('en')} calls counted after ${options.warmup.toLocaleString('en')} uncounted, ${options.concurrency} in flight; fan-out: ${options.changes} changes counted after as many uncounted, ${options.streams} streams; cold start: median of ${options.coldRuns}, without NODE_EXTRA_CA_CERTS; ${valgrind}, node ${process.version}.`
console.log(table)
console.log(`\n${note}`)

mkdirSync(options.out, { recursive: true })
const stamp = new Date().toISOString().replace(/[:.]/g, '-')
const result = {
  date: new Date().toISOString(),
  node: process.version,
  valgrind,
  options,
  rows,
  ...(guardCounts && { guards: guardCounts }),
  memory: memory.map((row) => ({
    ...row,
    toolwire: { ...row.toolwire, kinds: Object.fromEntries(row.toolwire.kinds) },
    floor: { ...row.floor, kinds: Object.fromEntries(row.floor.kinds) },
  })),
}
writeFileSync(join(options.out, `instructions-${stamp}.json`), JSON.stringify(result, null, 2) + '\n')
writeFileSync(join(options.out, `instructions-${stamp}.md`), `${table}\n\n${note}\n`)
console.log(`\nwritten to ${join(options.out, `instructions-${stamp}.json`)} and .md`)
