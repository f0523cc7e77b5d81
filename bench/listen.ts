/**
 * Listen streams at scale (`npm run bench -- --only=listen`): one toolwire instance holds `count` open
 * `subscriptions/listen` streams, spread over loopback addresses (10 per address, within the per-address limits
 * as shipped). Reported:
 * - bytes per open stream, counted in the server process after a full collection (heap + external, and RSS),
 *   as the difference with the same server holding no stream, divided by `count`;
 * - fan-out: one tool-list change made through a separate request, and the time from sending that request
 *   until each stream has its `notifications/tools/list_changed` (median and slowest), from timestamps taken in
 *   this process.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { Agent, request as httpRequest, type ClientRequest } from 'node:http'
import { performance } from 'node:perf_hooks'
import { headersFor, pinServer, post, PROTOCOL_VERSION } from './harness.js'

export interface ListenFigures {
  readonly streams: number
  readonly heapBytesPerStream: number
  readonly rssBytesPerStream: number
  readonly fanoutMedianMs: number
  readonly fanoutMaxMs: number
  /** Streams that had the change within the deadline (should equal `streams`). */
  readonly delivered: number
}

const META = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'toolwire-bench', version: '0.1.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}
const PER_ADDRESS = 10
const BATCH = 250

interface Memory {
  readonly rss: number
  readonly heap: number
}

function memoryOf(child: ChildProcess): Promise<Memory> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as Memory))
    child.send('memory')
  })
}

interface Stream {
  readonly request: ClientRequest
  readonly acknowledged: Promise<void>
  changedAt: number | undefined
}

function openStream(url: string, id: number, agent: Agent, onChange: (stream: Stream) => void): Stream {
  const message = {
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { _meta: META, notifications: { toolsListChanged: true } },
  }
  const body = JSON.stringify(message)
  const octet = Math.floor(id / PER_ADDRESS)
  const localAddress = `127.1.${(octet >> 8) & 255}.${octet & 255}`
  let acknowledge!: () => void
  let fail!: (error: Error) => void
  const acknowledged = new Promise<void>((resolve, reject) => {
    acknowledge = resolve
    fail = reject
  })
  const request = httpRequest(url, {
    method: 'POST',
    agent,
    localAddress,
    headers: { ...headersFor(message), 'content-length': String(Buffer.byteLength(body)) },
  })
  const stream: Stream = { request, acknowledged, changedAt: undefined }
  request.on('response', (response) => {
    if (response.statusCode !== 200) fail(new Error(`listen ${id}: HTTP ${response.statusCode}`))
    let seen = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => {
      seen += chunk
      if (seen.includes('notifications/subscriptions/acknowledged')) acknowledge()
      if (stream.changedAt === undefined && seen.includes('notifications/tools/list_changed')) {
        stream.changedAt = performance.now()
        onChange(stream)
      }
      if (seen.length > 4096) seen = seen.slice(-1024)
    })
  })
  request.on('error', (error) => fail(error))
  request.end(body)
  return stream
}

async function openMany(
  url: string,
  count: number,
  from: number,
  agent: Agent,
  onChange: (s: Stream) => void,
) {
  const streams: Stream[] = []
  for (let start = 0; start < count; start += BATCH) {
    const batch: Stream[] = []
    for (let i = start; i < Math.min(count, start + BATCH); i++)
      batch.push(openStream(url, from + i, agent, onChange))
    await Promise.all(batch.map((stream) => stream.acknowledged))
    streams.push(...batch)
  }
  return streams
}

export async function listenBench(script: string, count: number): Promise<ListenFigures> {
  const child = fork(script, [], {
    execArgv: ['--expose-gc'],
    env: { ...process.env, STREAMS: String(count) },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  pinServer(child.pid)
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = ''
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk
        const match = /on (http:\/\/\S+)/.exec(output)
        if (match?.[1]) resolve(match[1])
      })
      child.once('exit', (code) => reject(new Error(`listen bench server exited with ${code}: ${output}`)))
    })
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
    // Warm the path (and the server's pools) with a few streams, then measure from a quiet baseline.
    const warm = await openMany(url, 100, 0, agent, () => {})
    for (const stream of warm) stream.request.destroy()
    await new Promise((resolve) => setTimeout(resolve, 500))
    const before = await memoryOf(child)
    let delivered = 0
    let allDelivered!: () => void
    const done = new Promise<void>((resolve) => (allDelivered = resolve))
    const streams = await openMany(url, count, 1_000, agent, () => {
      if (++delivered === count) allDelivered()
    })
    const after = await memoryOf(child)
    const touch = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'touch', arguments: {}, _meta: META },
    }
    const sentAt = performance.now()
    await post(url, touch)
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 30_000))])
    const latencies = streams
      .map((stream) => stream.changedAt)
      .filter((at): at is number => at !== undefined)
      .map((at) => at - sentAt)
      .sort((a, b) => a - b)
    for (const stream of streams) stream.request.destroy()
    agent.destroy()
    return {
      streams: count,
      heapBytesPerStream: (after.heap - before.heap) / count,
      rssBytesPerStream: (after.rss - before.rss) / count,
      fanoutMedianMs: latencies[latencies.length >> 1] ?? Number.NaN,
      fanoutMaxMs: latencies[latencies.length - 1] ?? Number.NaN,
      delivered: latencies.length,
    }
  } finally {
    child.kill('SIGTERM')
  }
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`
const ms = (value: number): string => `${value.toFixed(0)} ms`

/** The listen rows of the benchmark: toolwire and the raw floor, one run each, as a Markdown table. */
export async function listenTable(count: number): Promise<string> {
  const toolwire = await listenBench('bench/.build/listen.js', count)
  const floor = await listenBench('bench/raw-listen-server.mjs', count)
  const row = (what: string, pick: (f: ListenFigures) => number, show: (n: number) => string): string =>
    `| ${what} | ${show(pick(toolwire))} | ${show(pick(floor))} | ${(pick(toolwire) / pick(floor)).toFixed(2)}x |`
  return [
    `| ${count.toLocaleString('en')} open listen streams | toolwire | raw node floor | ratio |`,
    '| --- | --- | --- | --- |',
    row('memory per stream (heap + external)', (f) => f.heapBytesPerStream, kb),
    row('memory per stream (RSS)', (f) => f.rssBytesPerStream, kb),
    row('one change reaches the median stream', (f) => f.fanoutMedianMs, ms),
    row('one change reaches every stream', (f) => f.fanoutMaxMs, ms),
    `| streams that got the change | ${toolwire.delivered} | ${floor.delivered} | |`,
  ].join('\n')
}

// `node --import tsx bench/listen.ts [count]` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(process.argv[2] ?? '10000')
  console.log(await listenTable(count))
}
