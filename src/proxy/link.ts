/** Opening an upstream: the client for a target, and the first `server/discover` that proves it answers. */
import type { Client, ClientOptions } from '../client/client.js'
import { connect } from '../client/connect.js'
import { StdioTransport } from '../client/stdio.js'
import { stripControls } from '../security/sanitize.js'
import type { TelemetryOption } from '../wire/telemetry.js'
import type { DiscoverResult } from '../wire/types.js'
import { sharedCapabilities } from './capability-groups.js'
import { CallerRoutes } from './caller-routes.js'
import { type RestartOptions, Upstream } from './upstream.js'
import { type IsolateOptions, UpstreamPool } from './upstream-pool.js'

/** A stdio server to spawn (one process shared by every downstream caller). */
export interface StdioUpstream {
  readonly command: string
  readonly args?: readonly string[]
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** The upstream's stderr: passed through to ours (default), dropped, or piped. */
  readonly stderr?: 'inherit' | 'ignore' | 'pipe'
}

/** A Streamable HTTP (or 2025-era HTTP+SSE) server. */
export interface HttpUpstream {
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * Opens the upstream client itself, given the options the proxy would open it with: the client capabilities
 * to declare (every relayed one for the shared connection, a caller's own for a connection of its own), the
 * spec's `client` options and the downstream telemetry. A function that does not pass them on opens a
 * client that declares nothing, and the upstream then asks the downstream caller nothing (it may offer
 * fewer tools too).
 */
export type OpenTarget = (options: ClientOptions) => Client

export type ProxyTarget = StdioUpstream | HttpUpstream | OpenTarget

/** How to reach one upstream. */
export interface UpstreamSpec {
  /**
   * The upstream server: a command, a URL, or a function that opens a new toolwire `Client` each time (with
   * the options it is given, so that the upstream sees the same client capabilities as any other target).
   */
  readonly target: ProxyTarget
  /**
   * Options of the upstream client (timeouts, auth, budget …); `telemetry` defaults to the downstream
   * server's. A `target` function receives them, with the relayed capabilities, and opens its client.
   */
  readonly client?: ClientOptions
  /** Backoff between restarts of a crashed stdio upstream. */
  readonly restart?: RestartOptions
  /** How the upstream is named in errors and warnings (default: its URL without query, or its command line). */
  readonly label?: string
  /** How long the upstream may take to answer `server/discover` at start (default 10 s). */
  readonly startTimeoutMs?: number
  /**
   * Listed resources whose updates are followed upstream, for downstream subscribers (default 64; the
   * rest are listed and read but not followed, with a warning).
   */
  readonly maxResourceSubscriptions?: number
  /**
   * Failed attempts in a row to reopen the upstream's change stream after it was dropped, before giving up
   * with a warning (default 10; waits as `restart`).
   */
  readonly maxListenRetries?: number
  /**
   * 2025-era upstream tasks held at once (default 256): such a task asks its questions on a tasks/result
   * request the proxy keeps open while the task waits for an answer. Past the bound, the task held longest is
   * let go (its open questions refused).
   */
  readonly maxHeldTasks?: number
  /** Of those, how many one principal's tasks may take (default 32), so one caller cannot take them all. */
  readonly maxHeldTasksPerPrincipal?: number
  /**
   * Upstream processes (or connections, for a `target` function) of their own for groups of callers, each
   * declaring upstream what its callers declared (sampling, elicitation, roots); bounded by `maxProcesses`,
   * each stopped after `idleTimeoutMs` unused. `per: 'principal'`: each principal per capability set, for
   * stateful servers. `per: 'capabilities'`: each capability set to which the upstream lists other tools
   * than to the shared process, the default for a stdio command (`{ per: 'capabilities' }`). A `target`
   * function gets none unless asked: it may reach a server that takes one connection only.
   */
  readonly isolate?: IsolateOptions
}

export interface OpenUpstream {
  readonly upstream: Upstream
  readonly discovered: DiscoverResult
  readonly label: string
  readonly spec: UpstreamSpec
}

function describe(target: ProxyTarget): string {
  if (typeof target === 'function') return 'the upstream server'
  if ('url' in target) return stripControls(target.url.replace(/[?#].*$/, ''))
  return stripControls([target.command, ...(target.args ?? [])].join(' '))
}

function opener(target: ProxyTarget, options: ClientOptions): () => Client {
  if (typeof target === 'function') return () => target(options)
  if ('url' in target)
    return () => connect({ url: target.url, ...(target.headers && { headers: target.headers }) }, options)
  return () =>
    connect(
      new StdioTransport({
        command: target.command,
        ...(target.args && { args: [...target.args] }),
        ...(target.env && { env: { ...target.env } }),
        ...(target.cwd !== undefined && { cwd: target.cwd }),
        ...(target.stderr !== undefined && { stderr: target.stderr }),
      }),
      options,
    )
}

/**
 * Connects and discovers; fails (never hangs) when the upstream cannot be reached or stays silent.
 * `telemetry`: the downstream server's option. The upstream client inherits it unless its own options say
 * otherwise, so each upstream call is a CLIENT span under the downstream call's SERVER span (forwarding runs
 * inside the handler, in that span's context) and the upstream continues the same trace from `_meta`.
 */
export async function openUpstream(
  spec: UpstreamSpec,
  warn: (message: string) => void,
  telemetry?: TelemetryOption,
): Promise<OpenUpstream> {
  const label = spec.label === undefined ? describe(spec.target) : stripControls(spec.label)
  const options: ClientOptions = {
    ...(telemetry !== undefined && telemetry !== false && { telemetry }),
    ...spec.client,
    // What the upstream may ask is relayed to each call's downstream caller (input-relay.ts), so the
    // shared connection declares it all; callers that declare less get a connection of their own when
    // that changes what the upstream offers, or with `isolate` (caller-routes.ts).
    capabilities: sharedCapabilities(spec.client?.capabilities),
    // A stdio upstream's roots/list names no call: the caller of the only call in flight is asked. A
    // shared upstream hears each caller's roots in turn; `isolate` keeps each principal's to its process.
    rootsFromCall: spec.client?.rootsFromCall ?? true,
    warn: spec.client?.warn ?? warn,
    discoverTimeoutMs: spec.startTimeoutMs ?? spec.client?.discoverTimeoutMs ?? 10_000,
  }
  const target = spec.target
  if (spec.isolate && typeof target !== 'function' && 'url' in target)
    throw new TypeError(
      'isolate needs a stdio command (or a target function): an HTTP upstream is one server',
    )
  const upstream = new Upstream(opener(target, options), label, spec.restart)
  const isolate =
    spec.isolate ?? (typeof target !== 'function' && !('url' in target) ? { per: 'capabilities' } : undefined)
  if (isolate) {
    upstream.pool = new CallerRoutes(
      upstream,
      (onStop) =>
        new UpstreamPool(
          (capabilities) => opener(target, { ...options, capabilities })(),
          label,
          spec.restart ?? {},
          isolate,
          onStop,
        ),
      isolate.per === 'principal',
      spec.client?.capabilities,
    )
  }
  try {
    const discovered = await upstream.use((client) => client.discover())
    return { upstream, discovered, label, spec }
  } catch (error) {
    await upstream.close()
    throw error
  }
}
