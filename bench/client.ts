/**
 * The client side of `npm run bench` (`--only=client` runs it alone): toolwire's client, the official SDK v2
 * client and two bare request loops — `node:http` with a keep-alive Agent (the client floor) and global
 * `fetch` — all calling the SAME toolwire bench server process, sequentially and with 32 calls in flight, in
 * alternating rounds. Every answer is checked (id, sum in text and structured content); a wrong one stops
 * the run.
 *
 *   node --import tsx bench/client.ts [--quick]     runs only these legs (after `npm run build && npm run build:bench`)
 */
import { Agent, request as httpRequest } from 'node:http'
import { pathToFileURL } from 'node:url'
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { connect } from 'toolwire/client'
import { callMessage, callProblem, headersFor, SERVERS, startHttp } from './harness.js'

const IN_FLIGHT = 32

/** One kind of client: opened once, then asked for `add(a, b)` many times. */
interface Leg {
  readonly name: string
  open(url: string): Promise<{ add(a: number, b: number): Promise<number>; close(): Promise<void> }>
}

/** Checks a tools/call result as a client returns it: the sum in structured content and in the text. */
function sumOf(result: unknown): number {
  const { structuredContent, content, isError } = result as {
    structuredContent?: { sum?: unknown }
    content?: { type?: unknown; text?: unknown }[]
    isError?: unknown
  }
  const sum = structuredContent?.sum
  const text = content?.[0]
  if (isError || typeof sum !== 'number' || text?.type !== 'text' || typeof text.text !== 'string')
    throw new Error(`wrong tools/call result: ${JSON.stringify(result)}`)
  if ((JSON.parse(text.text) as { sum?: unknown }).sum !== sum)
    throw new Error(`text and structured content disagree: ${text.text}`)
  return sum
}

const toolwireLeg: Leg = {
  name: 'toolwire client',
  open: async (url) => {
    const client = connect({ url })
    await client.listTools()
    return {
      add: async (a, b) => sumOf(await client.callTool('add', { a, b })),
      close: () => client.close(),
    }
  },
}

const sdkLeg: Leg = {
  name: 'SDK v2 client',
  open: async (url) => {
    const client = new SdkClient({ name: 'sdk-v2-bench', version: '0.1.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    await client.listTools()
    return {
      add: async (a, b) => sumOf(await client.callTool({ name: 'add', arguments: { a, b } })),
      close: () => client.close(),
    }
  },
}

/** A bare request loop: the exact bytes a 2026-07-28 client sends, the answer parsed and checked. */
type Send = (url: string, body: string, headers: Record<string, string>) => Promise<string>

function bareLeg(name: string, start: () => { send: Send; close(): void }): Leg {
  return {
    name,
    open: async (url) => {
      const { send, close } = start()
      let id = 0
      return {
        add: async (a, b) => {
          const callId = ++id
          const message = callMessage(callId, a, b)
          const answer = JSON.parse(await send(url, JSON.stringify(message), headersFor(message))) as unknown
          const problem = callProblem(answer, callId, a + b)
          if (problem) throw new Error(`${name}: ${problem}`)
          return a + b
        },
        close: async () => close(),
      }
    },
  }
}

const nodeHttpLeg = bareLeg('node:http keep-alive loop', () => {
  const agent = new Agent({ keepAlive: true })
  const send = (
    url: string,
    body: string,
    headers: Record<string, string>,
    retried = false,
  ): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', agent, headers }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () =>
          res.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${res.statusCode}`)),
        )
        res.on('error', reject)
      })
      // A kept-alive socket the server closed meanwhile: sent again once, as node's documentation advises.
      req.on('error', (error: NodeJS.ErrnoException) =>
        !retried && req.reusedSocket && error.code === 'ECONNRESET'
          ? resolve(send(url, body, headers, true))
          : reject(error),
      )
      req.end(body)
    })
  return { send, close: () => agent.destroy() }
})

const fetchLeg = bareLeg('global fetch loop', () => ({
  send: async (url, body, headers) => {
    const response = await fetch(url, { method: 'POST', headers, body })
    if (response.status !== 200) throw new Error(`HTTP ${response.status}`)
    return response.text()
  },
  close: () => undefined,
}))

export const CLIENT_LEGS: readonly Leg[] = [toolwireLeg, sdkLeg, nodeHttpLeg, fetchLeg]
const FLOOR = nodeHttpLeg.name

interface Measured {
  readonly rate: number
  /** Client CPU time (user + system) per call, in µs: what the client itself costs. */
  readonly cpuPerCall: number
}

/** Calls `add` for `seconds` with `inFlight` calls outstanding; calls per second, every answer checked. */
async function measure(
  opened: Awaited<ReturnType<Leg['open']>>,
  inFlight: number,
  seconds: number,
): Promise<Measured> {
  const started = performance.now()
  const cpu = process.cpuUsage()
  const end = started + seconds * 1000
  let calls = 0
  const worker = async (lane: number): Promise<void> => {
    for (let index = 0; performance.now() < end; index++) {
      const sum = await opened.add(lane, index)
      if (sum !== lane + index) throw new Error(`wrong sum ${sum} for ${lane} + ${index}`)
      calls++
    }
  }
  await Promise.all(Array.from({ length: inFlight }, (_, lane) => worker(lane)))
  const used = process.cpuUsage(cpu)
  return {
    rate: calls / ((performance.now() - started) / 1000),
    cpuPerCall: (used.user + used.system) / calls,
  }
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

export interface ClientBenchOptions {
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly log?: (line: string) => void
}

const collectGarbage: () => void = (globalThis as { gc?: () => void }).gc ?? (() => undefined)

/** Runs every leg against one toolwire bench server; resolves with the Markdown table of medians. */
export async function clientBench(options: ClientBenchOptions): Promise<string> {
  const log = options.log ?? ((line: string) => console.log(line))
  // Four clients keep up to 32 keep-alive connections each, all from 127.0.0.1.
  process.env.MAX_CONNECTIONS_PER_ADDRESS = '256'
  const server = await startHttp(SERVERS[0] as (typeof SERVERS)[number], 1)
  const seq = new Map<string, number[]>(CLIENT_LEGS.map((leg) => [leg.name, []]))
  const par = new Map<string, number[]>(CLIENT_LEGS.map((leg) => [leg.name, []]))
  try {
    // A fresh client per measurement: what one client accumulates (caches, listeners) stays in its own run.
    // and each starts from a collected heap, so no leg pays for the garbage an earlier one left (the four
    // clients share this process; `npm run bench` runs it with --expose-gc).
    const run = async (leg: Leg, inFlight: number, seconds: number): Promise<Measured> => {
      collectGarbage()
      const client = await leg.open(server.url)
      try {
        return await measure(client, inFlight, seconds)
      } finally {
        await client.close()
      }
    }
    for (const leg of CLIENT_LEGS) await run(leg, IN_FLIGHT, options.warmupSeconds)
    for (let round = 1; round <= options.rounds; round++) {
      for (const leg of CLIENT_LEGS) {
        const one = await run(leg, 1, options.seconds)
        const many = await run(leg, IN_FLIGHT, options.seconds)
        seq.get(leg.name)?.push(one.rate)
        par.get(leg.name)?.push(many.rate)
        log(
          `round ${round}  client ${leg.name.padEnd(26)} sequential ${one.rate.toFixed(0)} (${one.cpuPerCall.toFixed(0)} µs CPU/call)  ${IN_FLIGHT} in flight ${many.rate.toFixed(0)} (${many.cpuPerCall.toFixed(0)} µs CPU/call)`,
        )
      }
    }
  } finally {
    await server.stop()
  }
  const floorSeq = median(seq.get(FLOOR) ?? [])
  const floorPar = median(par.get(FLOOR) ?? [])
  const lines = [
    `| Client calling the toolwire bench server (calls/s) | sequential | / floor | ${IN_FLIGHT} in flight | / floor | target |`,
    `|---|--:|--:|--:|--:|---|`,
  ]
  for (const leg of CLIENT_LEGS) {
    const one = median(seq.get(leg.name) ?? [])
    const many = median(par.get(leg.name) ?? [])
    const target = leg === toolwireLeg ? '≥ 0.85x' : leg.name === FLOOR ? 'the client floor' : ''
    lines.push(
      `| ${leg.name} | ${Math.round(one).toLocaleString('en')} | ${(one / floorSeq).toFixed(2)}x | ${Math.round(many).toLocaleString('en')} | ${(many / floorPar).toFixed(2)}x | ${target} |`,
    )
  }
  return lines.join('\n')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.argv.includes('--quick')
  clientBench({ rounds: quick ? 1 : 5, seconds: quick ? 2 : 4, warmupSeconds: quick ? 1 : 2 })
    .then((table) => console.log(`\n${table}\n`))
    .catch((error: unknown) => {
      console.error(error)
      process.exit(1)
    })
}
