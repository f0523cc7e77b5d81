/**
 * stdio, client side: spawns the server, newline-delimited JSON on its stdin/stdout, many requests in flight.
 * Notifications are routed by `progressToken` and `subscriptionId` (stdio §Receiving Messages); a cancelled
 * request gets `notifications/cancelled` (stdio §Cancellation); close ends stdin, then SIGTERM, then SIGKILL
 * (stdio §Shutdown), each to the server's whole process group (process-group.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import {
  classify,
  isRecord,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../wire/jsonrpc.js'
import { META_SUBSCRIPTION_ID } from '../wire/meta.js'
import { nestedDeeperThan } from '../wire/json-depth.js'
import { cancellationOf } from './cancellation.js'
import { TransportError } from './errors.js'
import { OWN_GROUP, ProcessGroup } from './process-group.js'
import {
  type ClientTransport,
  MAX_RESPONSE_DEPTH,
  type SendOptions,
  type ServerRequestHandler,
} from './transport.js'

export interface StdioTransportOptions {
  readonly command: string
  readonly args?: readonly string[]
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** What to do with the server's stderr (default: pass it through to ours). */
  readonly stderr?: 'inherit' | 'ignore' | 'pipe'
  /** How long close() waits for the process to exit before signalling it (default 2 s). */
  readonly exitGraceMs?: number
  /** Longest line accepted from the server (default 16 MiB); a longer one ends the connection. */
  readonly maxLineBytes?: number
}

interface Pending {
  readonly resolve: (response: JsonRpcResponse) => void
  readonly reject: (error: unknown) => void
  readonly onNotification: ((notification: JsonRpcNotification) => void) | undefined
  readonly progressToken: string | number | undefined
}

/**
 * Spawns an MCP server as a child process and talks to it over its stdin and stdout.
 *
 * @example
 * ```ts
 * import { StdioTransport } from 'toolwire/client/stdio'
 * import { connect } from 'toolwire/client'
 *
 * const client = connect(new StdioTransport({ command: 'node', args: ['server.js'] }))
 * ```
 */
export class StdioTransport implements ClientTransport {
  readonly kind = 'stdio'
  readonly process: ChildProcess
  onNotification: ((notification: JsonRpcNotification) => void) | undefined
  onRequest: ServerRequestHandler | undefined
  readonly #pending = new Map<RequestId, Pending>()
  readonly #byToken = new Map<string | number, Pending>()
  readonly #exitGraceMs: number
  #failure: TransportError | undefined
  readonly #exited: Promise<void>
  readonly #group: ProcessGroup

  constructor(options: StdioTransportOptions) {
    this.#exitGraceMs = options.exitGraceMs ?? 2_000
    const child = spawn(options.command, [...(options.args ?? [])], {
      stdio: ['pipe', 'pipe', options.stderr ?? 'inherit'],
      env: { ...process.env, ...options.env },
      ...(options.cwd !== undefined && { cwd: options.cwd }),
      detached: OWN_GROUP,
    })
    this.process = child
    this.#group = new ProcessGroup(child)
    // The command alone names the server: its arguments often carry tokens (a config's `args`), and this
    // message is printed and logged.
    const label = options.command
    // 'exit', not 'close': a grandchild that escaped the group may hold the pipes open for ever.
    this.#exited = new Promise((resolve) => {
      child.once('exit', () => resolve())
      child.once('error', () => resolve())
    })
    child.once('error', (error) => this.#fail(new TransportError(`Cannot start ${label}: ${error.message}`)))
    child.once('exit', (code, signal) =>
      this.#fail(
        new TransportError(`The server process ${label} exited (${signal ?? `code ${code ?? 'unknown'}`})`),
      ),
    )
    child.stdin?.on('error', () => undefined) // EPIPE after exit: reported through 'exit'
    this.#readLines(child, options.maxLineBytes ?? 16 * 1024 * 1024)
  }

  #readLines(child: ChildProcess, max: number): void {
    let pending: Buffer[] = []
    let size = 0
    child.stdout?.on('data', (chunk: Buffer) => {
      let start = 0
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        pending.push(chunk.subarray(start, end))
        this.#onLine(Buffer.concat(pending).toString('utf8'))
        pending = []
        size = 0
        start = end + 1
      }
      if (start < chunk.length) {
        size += chunk.length - start
        if (size > max) {
          pending = []
          this.#fail(new TransportError(`The server sent a line longer than ${max} bytes; connection closed`))
          this.#group.signal('SIGTERM')
          return
        }
        pending.push(Buffer.from(chunk.subarray(start)))
      }
    })
  }

  async credentialKey(): Promise<string> {
    return 'stdio'
  }

  #fail(error: TransportError): void {
    this.#failure ??= error
    for (const pending of this.#pending.values()) pending.reject(this.#failure)
    this.#pending.clear()
    this.#byToken.clear()
  }

  #write(message: JsonRpcRequest | JsonRpcNotification | JsonRpcResponse): void {
    if (this.#failure) throw this.#failure
    this.process.stdin?.write(`${JSON.stringify(message)}\n`)
  }

  #onLine(line: string): void {
    if (line.trim() === '') return
    // Refused before parsing, which would block the event loop (and every timeout) for seconds.
    if (nestedDeeperThan(line, MAX_RESPONSE_DEPTH)) return
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      return // not a message (a server must not write anything else to stdout); ignore it
    }
    const inbound = classify(parsed)
    if (inbound.kind === 'response') {
      const id = inbound.message.id
      const pending = id === undefined ? undefined : this.#pending.get(id)
      if (pending && id !== undefined) {
        this.#forget(id, pending)
        pending.resolve(inbound.message)
      }
      return
    }
    if (inbound.kind === 'request') {
      // Only 2025-era servers send requests (elicitation, sampling, roots, ping); the answer is written back.
      this.onRequest?.(inbound.message, undefined)
      return
    }
    if (inbound.kind !== 'notification') return
    const notification = inbound.message
    const meta = notification.params?._meta
    const subscription = isRecord(meta) ? meta[META_SUBSCRIPTION_ID] : undefined
    const token = notification.params?.progressToken
    const owner =
      subscription !== undefined && (typeof subscription === 'string' || typeof subscription === 'number')
        ? this.#pending.get(subscription)
        : notification.method === 'notifications/progress' &&
            (typeof token === 'string' || typeof token === 'number')
          ? this.#byToken.get(token)
          : undefined
    if (owner?.onNotification) owner.onNotification(notification)
    else this.onNotification?.(notification)
  }

  #forget(id: RequestId, pending: Pending): void {
    this.#pending.delete(id)
    if (pending.progressToken !== undefined) this.#byToken.delete(pending.progressToken)
  }

  request(message: JsonRpcRequest, options: SendOptions = {}): Promise<JsonRpcResponse> {
    if (this.#failure) return Promise.reject(this.#failure)
    // The client's cancellation is followed by listener: no AbortSignal is made per request.
    const cancel = options.cancellation ?? (options.signal && cancellationOf(options.signal))
    if (cancel?.aborted) return Promise.reject(cancel.reason)
    const meta = message.params?._meta
    const token = isRecord(meta) ? meta.progressToken : undefined
    return new Promise((resolve, reject) => {
      let unfollow = (): void => undefined
      const onAbort = (): void => {
        if (!this.#pending.has(message.id)) return
        this.#forget(message.id, pending)
        try {
          this.#write({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: message.id, reason: String(cancel?.reason ?? 'cancelled') },
          })
        } catch {
          // the process is gone; nothing to cancel
        }
        reject(cancel?.reason)
      }
      const pending: Pending = {
        resolve: (response) => {
          unfollow()
          resolve(response)
        },
        reject: (error) => {
          unfollow()
          reject(error)
        },
        onNotification: options.onNotification,
        progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
      }
      if (this.#pending.has(message.id)) {
        reject(new TypeError(`request id ${String(message.id)} is already in flight`))
        return
      }
      this.#pending.set(message.id, pending)
      if (pending.progressToken !== undefined) this.#byToken.set(pending.progressToken, pending)
      if (cancel) unfollow = cancel.onAbort(onAbort)
      try {
        this.#write(message)
      } catch (error) {
        this.#forget(message.id, pending)
        pending.reject(error)
      }
    })
  }

  async send(message: JsonRpcNotification | JsonRpcResponse): Promise<void> {
    this.#write(message)
  }

  async close(): Promise<void> {
    const child = this.process
    this.#fail(new TransportError('The client closed the connection'))
    const grace = this.#exitGraceMs
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end()
      await Promise.race([this.#exited, new Promise((r) => setTimeout(r, grace).unref())])
    }
    // The spawned process may be a wrapper that has exited while the server it started runs on: the group
    // is ended either way.
    if (!(await this.#group.ended(0))) {
      this.#group.signal('SIGTERM')
      if (!(await this.#group.ended(grace))) {
        this.#group.signal('SIGKILL')
        await this.#group.ended(grace)
      }
    }
    // Whatever still holds the pipes (a process that left the group) must not keep this process alive.
    child.stdin?.destroy()
    child.stdout?.destroy()
    child.stderr?.destroy()
  }
}
