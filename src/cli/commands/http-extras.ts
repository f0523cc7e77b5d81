/**
 * What `bridge` and `gateway` serve besides Streamable HTTP: the HTTP+SSE transport of revision 2024-11-05
 * (on unless turned off: clients of stdio-to-SSE gateways speak only that), CORS for listed browser origins,
 * and a health endpoint.
 */
import type { Upstream } from '../../proxy/upstream.js'
import type { HealthReport } from '../../transports/http/health.js'
import type { ServeOptions } from '../../transports/http/node.js'
import { UsageError } from '../client/target.js'

/** How long a health probe waits for an upstream's `ping` answer before calling it down. */
export const HEALTH_PROBE_TIMEOUT_MS = 5_000

export interface HttpExtras {
  /** `--no-sse` sets this false. */
  readonly sse?: boolean
  readonly cors?: readonly string[] | string
  readonly health?: string
}

/** Origins from `--cors a,b` (or a config array), each `scheme://host[:port]` exactly as browsers send it. */
export function corsOrigins(value: readonly string[] | string | undefined): string[] | undefined {
  if (value === undefined) return undefined
  const list = (typeof value === 'string' ? value.split(',') : value).map((item) => item.trim())
  for (const origin of list) {
    if (origin === '*') throw new UsageError('--cors lists origins; * would turn the Origin check off')
    let url: URL
    try {
      url = new URL(origin)
    } catch {
      throw new UsageError(`--cors: ${JSON.stringify(origin)} is not an origin (scheme://host[:port])`)
    }
    if (url.origin !== origin)
      throw new UsageError(`--cors: ${JSON.stringify(origin)} is not an origin; did you mean ${url.origin}?`)
  }
  return list
}

/** Whether one upstream answers `ping` in time. */
export async function upstreamUp(upstream: Upstream): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), HEALTH_PROBE_TIMEOUT_MS)
  })
  const answered = upstream
    .use((client) => client.request('ping', {}, { timeoutMs: HEALTH_PROBE_TIMEOUT_MS }))
    .then(
      () => true,
      () => false,
    )
  try {
    return await Promise.race([answered, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Health of several upstreams: 200 when every one answers, else 503; the body names each one's state. */
export async function upstreamsHealth(upstreams: ReadonlyMap<string, Upstream>): Promise<HealthReport> {
  const names = [...upstreams.keys()]
  const states = await Promise.all(names.map((name) => upstreamUp(upstreams.get(name) as Upstream)))
  const members = Object.fromEntries(names.map((name, index) => [name, states[index] ? 'up' : 'down']))
  const ok = states.every(Boolean)
  return { ok, body: { status: ok ? 'up' : 'down', members } }
}

/** The listener options the flags ask for; `upstreams` are what the health endpoint probes. */
export function httpExtras(
  flags: HttpExtras,
  upstreams: () => ReadonlyMap<string, Upstream>,
): Omit<ServeOptions, 'host' | 'port'> {
  const origins = corsOrigins(flags.cors)
  const health = flags.health
  if (health !== undefined && !health.startsWith('/'))
    throw new UsageError(`--health expects a path starting with /, not ${JSON.stringify(health)}`)
  return {
    ...(flags.sse !== false && { sse: true }),
    ...(origins && { corsOrigins: origins }),
    ...(health !== undefined && { health: { path: health, probe: () => upstreamsHealth(upstreams()) } }),
  }
}
