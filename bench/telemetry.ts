/**
 * The telemetry leg of the benchmark (`--only=telemetry`): toolwire's bench server twice, telemetry off and
 * telemetry on (the real OpenTelemetry SDK, every span batched to an exporter that drops it; see
 * server/telemetry.ts), loaded with the same tools/call in alternating rounds. The ratio on / off is what
 * instrumentation costs a server (target: at least 0.85x); the off figure must match the plain tools/call row.
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
}

interface Target {
  readonly name: string
  readonly running: HttpRunning
  readonly body: string
  readonly samples: AuthLoad[]
}

async function start(name: string, env: Record<string, string>, samples: AuthLoad[]): Promise<Target> {
  const [toolwire] = SERVERS as [BenchServer]
  return { name, ...(await startChecked(toolwire, name, env)), samples }
}

export async function telemetryRounds(options: {
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly load: LoadFn
}): Promise<TelemetrySamples> {
  const samples: TelemetrySamples = { off: [], on: [] }
  const targets: Target[] = []
  try {
    targets.push(await start('telemetry off', {}, samples.off))
    targets.push(await start('telemetry on', { TELEMETRY: 'on' }, samples.on))
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
