/**
 * `npm run bench:alloc [-- --calls=N --sites]`: bytes each server allocates per HTTP tools/call, counted
 * rather than timed, so it is stable on a busy machine. Each server runs in its own process with
 * `bench/alloc-probe.mjs` preloaded and a young generation large enough that no collection runs while
 * calls are counted; the calls come from this process over one keep-alive connection, so the client's
 * allocations are not counted. `--sites` adds the largest allocation sites (V8 sampling heap profiler).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { type BenchServer, callMessage, callProblem, headersFor, SERVERS } from './harness.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const argument = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)
const CALLS = Number(argument('calls') ?? 4_000)
const WARMUP = 8_000
const SITES = process.argv.includes('--sites')
const only = argument('only')?.split(',')

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
      '--min-semi-space-size=64',
      '--max-semi-space-size=64',
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
  const url = await new Promise<string>((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(() => reject(new Error(`${server.name} did not start`)), 20_000)
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
  const ask = <T>(message: string): Promise<T> =>
    new Promise((resolve) => {
      child.once('message', (answer) => resolve(answer as T))
      child.send(message)
    })
  return { child, url, ask }
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

function call(url: string, id: number): Promise<void> {
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
          if (problem) reject(new Error(problem))
          else resolve()
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

async function calls(url: string, count: number, first: number): Promise<void> {
  for (let id = first; id < first + count; id++) await call(url, id)
}

async function measure(server: BenchServer): Promise<void> {
  const probe = await start(server)
  try {
    await calls(probe.url, WARMUP, 1)
    await probe.ask('mark')
    await calls(probe.url, CALLS, WARMUP + 1)
    const { grown, collections } = await probe.ask<{ grown: number; collections: number }>('measure')
    const perCall =
      collections === 0
        ? `${(grown / CALLS).toFixed(0)} B/call`
        : `(${collections} collections ran: not counted)`
    let line = `${server.name.padEnd(9)} heap growth ${perCall}`
    if (SITES) {
      await probe.ask('sample')
      await calls(probe.url, CALLS, WARMUP + CALLS + 1)
      const report = await probe.ask<{ total: number; sites: [string, number][] }>('report')
      line += `, sampled ${(report.total / CALLS).toFixed(0)} B/call`
      console.log(line)
      for (const [site, bytes] of report.sites)
        console.log(`  ${(bytes / CALLS).toFixed(0).padStart(6)}  ${site}`)
      return
    }
    console.log(line)
  } finally {
    probe.child.kill('SIGKILL')
  }
}

for (const server of SERVERS)
  if (!only || only.includes(server.name.split(' ')[0] as string)) await measure(server)
agent.destroy()
