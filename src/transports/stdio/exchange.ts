/** The exchange of one request read from stdio: how its handler notifies, and how it learns of a cancel. */
import type { Exchange } from '../../protocol/exchange.js'
import { LazyAbort } from '../../wire/lazy-abort.js'
import type { JsonRpcNotification } from '../../wire/jsonrpc.js'

/**
 * One request's exchange; a class, because object literals with getters and per-request closures measurably
 * raise the cost of a request. `notify` is handed out as a bound function only when read.
 */
export class StdioExchange implements Exchange {
  readonly transport = 'stdio' as const
  readonly controller = new LazyAbort()
  /** Set by the transport once the line's raw text passed the depth check (`Exchange.checkedDepth`). */
  checkedDepth: number | undefined = undefined

  constructor(
    private readonly send: (line: string) => void,
    private readonly pending: () => number,
    /** Asks the client directly; set only for 2025-era connections (see Exchange.request). */
    readonly request?: (method: string, params: unknown, signal: AbortSignal) => Promise<unknown>,
  ) {}

  /** Bytes written but not yet taken by the reader of stdout (bounds slow listen streams). */
  backlog(): number {
    return this.pending()
  }

  get notify(): (message: JsonRpcNotification) => void {
    return (message) => {
      if (!this.controller.aborted) this.send(JSON.stringify(message))
    }
  }

  /** A notification serialised by the caller (once for many streams): see Exchange.notifyEncoded. */
  notifyEncoded(json: string): void {
    if (!this.controller.aborted) this.send(json)
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  get aborted(): boolean {
    return this.controller.aborted
  }

  onAbort(listener: () => void): () => void {
    return this.controller.onAbort(listener)
  }
}
