/**
 * Runs the benchmark server (`npm run bench:server`):
 *
 *   PORT=3000 TOOLS=1000 node bench/.build/main.js      Streamable HTTP on 127.0.0.1:PORT/mcp
 *   TOOLS=1 node bench/.build/main.js --stdio            stdio
 *
 * AUTH_* variables turn bearer auth on (see auth.ts); TELEMETRY=on turns OpenTelemetry on (see telemetry.ts);
 * GUARD_VARIANT names a guard change of server.ts's GUARD_VARIANTS, or several joined by `+` (the guard-cost rows).
 * SCHEMAS=open defines `add` without its input and output schemas (the guard-cost rows).
 * SECURITY=defaults passes no `security` option at all (rate limits and the concurrency cap on, as shipped).
 * PAGE_SIZE sets the `tools/list` page size (default 1000: a client building its tool list wants them all).
 * MAX_CONNECTIONS_PER_ADDRESS raises the per-address connection limit (default 64): the client benchmark
 * keeps several clients' keep-alive pools open from one address.
 */
import { createBenchServer, GUARD_VARIANTS, type GuardVariant } from './server.js'

function positiveInt(value: string | undefined, fallback: number, label: string): number {
  if (value === undefined || value === '') return fallback
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${label} must be a non-negative integer`)
  return parsed
}

async function main(): Promise<void> {
  const tools = Math.max(1, positiveInt(process.env.TOOLS, 1, 'TOOLS'))
  const pageSize = Math.max(1, positiveInt(process.env.PAGE_SIZE, 1000, 'PAGE_SIZE'))
  // node:crypto (for the keys) is loaded only when a benchmark asks for auth.
  const auth = Object.keys(process.env).some((name) => name.startsWith('AUTH_'))
    ? (await import('./auth.js')).benchAuth(process.env)
    : undefined
  // The OpenTelemetry SDK is loaded only when a benchmark asks for telemetry.
  const telemetry =
    process.env.TELEMETRY === 'on' ? (await import('./telemetry.js')).benchTelemetry(process.env) : undefined
  // One variant, or several joined by `+` (applied in that order).
  const variants = process.env.GUARD_VARIANT?.split('+')
  for (const variant of variants ?? [])
    if (!(variant in GUARD_VARIANTS)) throw new Error(`unknown GUARD_VARIANT ${variant}`)
  const schemas = process.env.SCHEMAS
  if (schemas !== undefined && schemas !== 'open') throw new Error(`unknown SCHEMAS ${schemas}`)
  const security = process.env.SECURITY
  if (security !== undefined && security !== 'defaults') throw new Error(`unknown SECURITY ${security}`)
  const server = createBenchServer(
    tools,
    pageSize,
    auth,
    telemetry,
    variants as GuardVariant[] | undefined,
    security === 'defaults',
    schemas === 'open',
  )
  // Each mode imports only its own transport, as a server that serves one of them would.
  if (process.argv.includes('--stdio')) {
    const { serveStdio } = await import('toolwire/stdio')
    const connection = serveStdio(server)
    await connection.closed
    process.exit(0)
  }
  const { serveNode } = await import('toolwire/node')
  const running = await serveNode(server, {
    port: positiveInt(process.env.PORT, 3000, 'PORT'),
    maxConnectionsPerAddress: Math.max(
      1,
      positiveInt(process.env.MAX_CONNECTIONS_PER_ADDRESS, 64, 'MAX_CONNECTIONS_PER_ADDRESS'),
    ),
  })
  console.log(`toolwire bench server (${tools} tools) on ${running.url}`)
  const stop = (): void => void running.close().then(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
