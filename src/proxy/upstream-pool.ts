/**
 * Upstream processes of their own for groups of callers: one per downstream principal, for stateful stdio
 * servers (a shell, a browser, a database session) whose state one caller must not see another's in
 * (basic/security_best_practices §Session Hijacking: bind state to the user), and one per set of declared
 * client capabilities (caller-routes.ts). The processes are bounded: at most `maxProcesses` at once; when
 * all are taken, the one idle longest is stopped for a newcomer, and when none is idle the call is refused
 * rather than a process started. A process unused for `idleTimeoutMs` is stopped.
 */
import type { Client } from '../client/client.js'
import { upstreamUnavailable } from '../wire/errors.js'
import type { ClientCapabilities } from '../wire/types.js'
import { type RestartOptions, Upstream } from './upstream.js'

/**
 * How a proxy keeps each caller's upstream process apart.
 *
 * @example
 * ```ts
 * const proxy = await defineProxy({
 *   target: { command: 'node', args: ['shell-server.js'] },
 *   isolate: { per: 'principal', maxProcesses: 8, idleTimeoutMs: 60_000 },
 * })
 * ```
 */
export interface IsolateOptions {
  /**
   * Whose calls share a process: `principal`, each principal (`ownerKey`: the token's subject, else the
   * address) that declared the same client capabilities; `capabilities`, the callers that declared the same
   * capabilities when the upstream lists them other tools than the shared process (caller-routes.ts; the
   * default for a stdio command).
   */
  readonly per: 'principal' | 'capabilities'
  /** Processes at once for callers (default 16); the shared one that lists the tools is not counted. */
  readonly maxProcesses?: number
  /** A caller's process unused this long is stopped (default 5 minutes). */
  readonly idleTimeoutMs?: number
}

/**
 * The bounds of per-principal upstream processes unless `isolate` says otherwise.
 *
 * @example
 * ```ts
 * const isolate = { per: 'principal', maxProcesses: ISOLATE_DEFAULTS.maxProcesses * 2 } as const
 * ```
 */
export const ISOLATE_DEFAULTS = { maxProcesses: 16, idleTimeoutMs: 300_000 } as const

interface Entry {
  readonly upstream: Upstream
  inFlight: number
  lastUsed: number
  timer: ReturnType<typeof setTimeout> | undefined
}

/** Opens a connection declaring these client capabilities. */
export type CapableOpener = (capabilities: ClientCapabilities) => Client

export class UpstreamPool {
  readonly #open: CapableOpener
  readonly #label: string
  readonly #restart: RestartOptions
  readonly #max: number
  readonly #idleMs: number
  readonly #entries = new Map<string, Entry>()
  readonly #onStop: (key: string) => void
  #closed = false

  constructor(
    open: CapableOpener,
    label: string,
    restart: RestartOptions,
    options: Omit<IsolateOptions, 'per'>,
    onStop: (key: string) => void = () => {},
  ) {
    this.#open = open
    this.#label = label
    this.#restart = restart
    this.#max = options.maxProcesses ?? ISOLATE_DEFAULTS.maxProcesses
    this.#idleMs = options.idleTimeoutMs ?? ISOLATE_DEFAULTS.idleTimeoutMs
    this.#onStop = onStop
  }

  /** Callers with a process now. */
  get size(): number {
    return this.#entries.size
  }

  /** Runs `work` on `owner`'s own upstream, started (declaring `capabilities`) if needed. */
  async use<T>(
    owner: string,
    capabilities: ClientCapabilities,
    work: (client: Client) => Promise<T>,
    signal?: AbortSignal | (() => AbortSignal),
  ): Promise<T> {
    const entry = this.#entry(owner, capabilities)
    entry.inFlight += 1
    if (entry.timer) clearTimeout(entry.timer)
    entry.timer = undefined
    try {
      return await entry.upstream.use(work, signal)
    } finally {
      entry.inFlight -= 1
      entry.lastUsed = Date.now()
      if (entry.inFlight === 0 && this.#entries.get(owner) === entry) {
        entry.timer = setTimeout(() => this.#stop(owner, entry), this.#idleMs)
        entry.timer.unref?.()
      }
    }
  }

  /** Stops `owner`'s upstream now (its calls in flight fail). */
  release(owner: string): void {
    const entry = this.#entries.get(owner)
    if (entry) this.#stop(owner, entry)
  }

  #entry(owner: string, capabilities: ClientCapabilities): Entry {
    if (this.#closed) throw upstreamUnavailable(`${this.#label}: the proxy is closed`)
    const known = this.#entries.get(owner)
    if (known) return known
    if (this.#entries.size >= this.#max) {
      let idlest: [string, Entry] | undefined
      for (const pair of this.#entries) {
        if (pair[1].inFlight === 0 && (!idlest || pair[1].lastUsed < idlest[1].lastUsed)) idlest = pair
      }
      if (!idlest) {
        throw upstreamUnavailable(
          `${this.#label}: all ${this.#max} upstream processes are busy with other callers (isolate.maxProcesses)`,
        )
      }
      this.#stop(idlest[0], idlest[1])
    }
    const entry: Entry = {
      upstream: new Upstream(() => this.#open(capabilities), this.#label, this.#restart),
      inFlight: 0,
      lastUsed: Date.now(),
      timer: undefined,
    }
    this.#entries.set(owner, entry)
    return entry
  }

  #stop(owner: string, entry: Entry): void {
    if (entry.timer) clearTimeout(entry.timer)
    if (this.#entries.get(owner) === entry) {
      this.#entries.delete(owner)
      this.#onStop(owner)
    }
    void entry.upstream.close().catch(() => undefined)
  }

  async close(): Promise<void> {
    this.#closed = true
    const entries = [...this.#entries]
    this.#entries.clear()
    await Promise.all(
      entries.map(([, entry]) => {
        if (entry.timer) clearTimeout(entry.timer)
        return entry.upstream.close().catch(() => undefined)
      }),
    )
  }
}
