/**
 * The telemetry leg of the benchmark (`--only=telemetry`): toolwire's bench server twice, telemetry off and
 * telemetry on (the real OpenTelemetry SDK, every span batched to an exporter that drops it; see
 * server/telemetry.ts), loaded with the same tools/call in alternating rounds. The ratio on / off is what
 * instrumentation costs a server (target: at least 0.85x); the off figure must match the plain tools/call row.
 * The raw floor runs beside them, off and on (bench/raw-telemetry.mjs: the same SDK setup, one span and one
 * measurement per request around the bare handler): its ratio is what the SDK alone costs, the best any
 * instrumented server reaches.
 */
import type { AuthLoad, LoadFn } from './auth.js'
import {
  type BenchServer,
  callMessage,
  headersFor,
  type HttpRunning,
  SERVERS,
  startChecked,
} from './harness.js'

export interface TelemetrySamples {
  readonly off: AuthLoad[]
  readonly on: AuthLoad[]
  readonly floorOff: AuthLoad[]
  readonly floorOn: AuthLoad[]
}

interface Target {
  readonly name: string
  readonly running: HttpRunning
  readonly body: string
  readonly samples: AuthLoad[]
}

async function start(
  server: BenchServer,
  name: string,
  env: Record<string, string>,
  samples: AuthLoad[],
): Promise<Target> {
  return { name, ...(await startChecked(server, name, env)), samples }
}

export async function telemetryRounds(options: {
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly load: LoadFn
}): Promise<TelemetrySamples> {
  const samples: TelemetrySamples = { off: [], on: [], floorOff: [], floorOn: [] }
  const [toolwire, , raw] = SERVERS as [BenchServer, BenchServer, BenchServer]
  const targets: Target[] = []
  try {
    targets.push(await start(toolwire, 'telemetry off', {}, samples.off))
    targets.push(await start(toolwire, 'telemetry on', { TELEMETRY: 'on' }, samples.on))
    targets.push(await start(raw, 'raw, off', {}, samples.floorOff))
    targets.push(await start(raw, 'raw, on', { TELEMETRY: 'on' }, samples.floorOn))
    const message = callMessage(7)
    const headers = headersFor(message)
    for (const t of targets)
      await options.load(t.running.url, message, t.body, options.warmupSeconds, headers)
    for (let round = 1; round <= options.rounds; round++) {
      for (const t of targets) {
        const result = await options.load(t.running.url, message, t.body, options.seconds, headers)
        t.samples.push(result)
        const flag = result.problems > 0 ? `  (${result.problems} non-2xx/errors/mismatches)` : ''
        console.log(
          `round ${round}  tools/call, OpenTelemetry${' '.repeat(24)} ${t.name.padEnd(16)} ${result.rps.toFixed(0)}${flag}`,
        )
      }
    }
  } finally {
    for (const t of targets) await t.running.stop()
  }
  return samples
}
