/**
 * What each guard costs (`npm run bench -- --only=guards`): the toolwire bench server as the other rows run
 * it, the same server with one guard changed (bench/server/server.ts, GUARD_VARIANTS), and the raw floor,
 * loaded with the same tools/call in alternating rounds. Beside calls/s it reports the server's own CPU time
 * per answered call (user + system, from /proc/<pid>/stat): on a shared machine throughput moves with
 * whatever else runs, while the CPU a process spends per call moves much less, so the difference between two
 * rows is the price of the guard that differs.
 */
import { readFileSync } from 'node:fs'
import type { AuthLoad, LoadFn } from './auth.js'
import {
  type BenchServer,
  callMessage,
  headersFor,
  type HttpRunning,
  SERVERS,
  startChecked,
} from './harness.js'
import { GUARD_VARIANTS } from './server/server.js'

export interface GuardSample extends AuthLoad {
  /** Server CPU (user + system) per correct answer, in microseconds; NaN where /proc is missing. */
  readonly cpuMicros: number
}

export interface GuardRow {
  readonly name: string
  readonly samples: GuardSample[]
}

interface Target extends GuardRow {
  readonly running: HttpRunning
  readonly body: string
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux node runs on). */
const USER_HZ = 100

/** The process's CPU time so far, in microseconds, or NaN when the platform has no /proc. */
function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / USER_HZ
  } catch {
    return Number.NaN
  }
}

async function start(server: BenchServer, name: string, env: Record<string, string>): Promise<Target> {
  return { name, ...(await startChecked(server, name, env)), samples: [] }
}

export async function guardRounds(options: {
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly load: LoadFn
}): Promise<GuardRow[]> {
  const [toolwire, , raw] = SERVERS as [BenchServer, BenchServer, BenchServer]
  const targets: Target[] = []
  try {
    targets.push(await start(raw, 'raw node floor', {}))
    targets.push(await start(toolwire, 'toolwire, as benchmarked', {}))
    for (const variant of Object.keys(GUARD_VARIANTS))
      targets.push(await start(toolwire, `toolwire, ${variant}`, { GUARD_VARIANT: variant }))
    const message = callMessage(7)
    const headers = headersFor(message)
    for (const t of targets)
      await options.load(t.running.url, message, t.body, options.warmupSeconds, headers)
    for (let round = 1; round <= options.rounds; round++) {
      for (const t of targets) {
        const pid = t.running.child.pid
        const before = cpuMicros(pid)
        const result = await options.load(t.running.url, message, t.body, options.seconds, headers)
        const answered = result.rps * options.seconds
        const sample = { ...result, cpuMicros: (cpuMicros(pid) - before) / answered }
        t.samples.push(sample)
        const flag = result.problems > 0 ? `  (${result.problems} non-2xx/errors/mismatches)` : ''
        console.log(
          `round ${round}  guards ${t.name.padEnd(38)} ${result.rps.toFixed(0).padStart(7)} req/s  ${sample.cpuMicros.toFixed(1)} µs CPU/call${flag}`,
        )
      }
    }
  } finally {
    for (const t of targets) await t.running.stop()
  }
  return targets.map(({ name, samples }) => ({ name, samples }))
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** The guard-cost table: calls/s, CPU per call, and each row's CPU against the server as benchmarked. */
export function guardTable(rows: readonly GuardRow[]): string {
  const [floor, base] = rows
  const floorCpu = median(floor?.samples.map((s) => s.cpuMicros) ?? [])
  const baseCpu = median(base?.samples.map((s) => s.cpuMicros) ?? [])
  const lines = [
    '| tools/call, one guard changed | req/s | server CPU per call (µs) | CPU vs as benchmarked (µs) | floor CPU / this CPU |',
    '| --- | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows) {
    const cpu = median(row.samples.map((s) => s.cpuMicros))
    const delta = row === floor ? '' : (cpu - baseCpu).toFixed(1)
    lines.push(
      `| ${row.name} | ${median(row.samples.map((s) => s.rps)).toFixed(0)} | ${cpu.toFixed(1)} | ${delta} | ${(floorCpu / cpu).toFixed(2)}x |`,
    )
  }
  return lines.join('\n')
}
