/**
 * Bytes a benchmark server allocates per HTTP tools/call, counted rather than timed, so the figure holds on
 * a busy machine. The server runs in its own process with `bench/alloc-probe.mjs` preloaded and a young
 * generation large enough that no collection runs while calls are counted; the calls come from this process
 * over one keep-alive connection, so the client's allocations are not counted.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { announcedUrl, type BenchServer, callMessage, callProblem, headersFor } from './harness.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** MiB per semi-space: room for every counted call's garbage, so none is collected mid-count. */
const SEMI_SPACE_MIB = 64

export interface AllocationOptions {
  /** Calls counted (default 2,000: well inside the young generation at up to ~30 KB a call). */
  readonly calls?: number
  /** Calls made first, so the code is optimised as it is under load (default 8,000). */
  readonly warmup?: number
  /** Also sample allocation sites (V8 sampling heap profiler) over as many more calls. */
  readonly sites?: boolean
  /** Attempts when a collection ran anyway (default 3). */
  readonly attempts?: number
}

export interface Allocation {
  /** Heap growth per call, in bytes. */
  readonly bytesPerCall: number
  /** Allocation sites, bytes per call, largest first (with `sites`). */
  readonly sites?: readonly (readonly [site: string, bytesPerCall: number])[]
}

interface Probe {
  readonly child: ChildProcess
  readonly url: string
  ask<T>(message: string): Promise<T>
}

async function start(server: BenchServer): Promise<Probe> {
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      `--min-semi-space-size=${SEMI_SPACE_MIB}`,
      `--max-semi-space-size=${SEMI_SPACE_MIB}`,
      '--import',
      './bench/alloc-probe.mjs',
      server.script,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', TOOLS: '1' },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  )
  try {
    const url = await announcedUrl(server, child, 30_000)
    const ask = <T>(message: string): Promise<T> =>
      new Promise((resolve, reject) => {
        child.once('message', (answer) => resolve(answer as T))
        child.send(message, (error) => error && reject(error))
      })
    return { child, url, ask }
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
}

function call(agent: Agent, url: string, id: number): Promise<void> {
  const message = callMessage(id, id, 1)
  const body = JSON.stringify(message)
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headersFor(message), 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const problem = callProblem(JSON.parse(Buffer.concat(chunks).toString()), id, id + 1)
          if (problem) reject(new Error(`wrong answer to call ${id}: ${problem}`))
          else resolve()
        })
      },
    )
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer to call ${id}`)))
    req.on('error', reject)
    req.end(body)
  })
}

async function calls(agent: Agent, url: string, count: number, first: number): Promise<number> {
  for (let id = first; id < first + count; id++) await call(agent, url, id)
  return first + count
}

/** Starts `server`, warms it up, counts its allocations over `calls` tools/calls, and stops it. */
export async function allocationPerCall(
  server: BenchServer,
  options: AllocationOptions = {},
): Promise<Allocation> {
  const count = options.calls ?? 2_000
  const probe = await start(server)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    let id = await calls(agent, probe.url, options.warmup ?? 8_000, 1)
    let bytesPerCall: number | undefined
    for (let attempt = 0; bytesPerCall === undefined && attempt < (options.attempts ?? 3); attempt++) {
      await probe.ask('mark')
      id = await calls(agent, probe.url, count, id)
      const { grown, collections } = await probe.ask<{ grown: number; collections: number }>('measure')
      if (collections === 0) bytesPerCall = grown / count
    }
    if (bytesPerCall === undefined) throw new Error(`${server.name}: a collection ran during every count`)
    if (!options.sites) return { bytesPerCall }
    await probe.ask('sample')
    await calls(agent, probe.url, count, id)
    const report = await probe.ask<{ sites: [string, number][] }>('report')
    return { bytesPerCall, sites: report.sites.map(([site, bytes]) => [site, bytes / count] as const) }
  } finally {
    agent.destroy()
    probe.child.kill('SIGKILL')
  }
}
