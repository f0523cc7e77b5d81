/** Reads a long-lived SSE response (a listen stream) message by message, schema-validating each one. */
import { meta, standardHeaders, type Fetcher } from './http.js'
import { assertServerMessage } from './spec-schema.js'
import { GENEROUS_MS } from './wait.js'

export interface OpenStream {
  readonly status: number
  /** The next JSON-RPC message, or undefined when the stream ended first. Rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Record<string, unknown> | undefined>
  /** Every SSE comment line seen so far (keep-alives). */
  readonly comments: string[]
  /** Resolves when the server ended the stream. */
  readonly ended: Promise<void>
  /** Closes the stream from the client side. */
  close(): void
}

export async function openListen(
  fetcher: Fetcher,
  id: string | number,
  notifications: Record<string, unknown>,
  options: { meta?: Record<string, unknown>; read?: boolean } = {},
): Promise<OpenStream> {
  const controller = new AbortController()
  const params = { _meta: options.meta ?? meta(), notifications }
  const request = new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: standardHeaders('subscriptions/listen', params),
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }),
    signal: controller.signal,
  })
  const response = await fetcher(request)
  const queue: Record<string, unknown>[] = []
  const comments: string[] = []
  let waiter: (() => void) | undefined
  let done = false
  let endedResolve!: () => void
  const ended = new Promise<void>((resolve) => (endedResolve = resolve))
  const finish = (): void => {
    done = true
    endedResolve()
    waiter?.()
  }
  if (!response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await response.text()
    if (text) {
      const message = JSON.parse(text) as Record<string, unknown>
      assertServerMessage(message, 'subscriptions/listen')
      queue.push(message)
    }
    finish()
  } else if (options.read !== false) {
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    void (async () => {
      try {
        for (;;) {
          const { done: streamDone, value } = await reader.read()
          if (streamDone) break
          buffer += decoder.decode(value, { stream: true })
          let cut: number
          while ((cut = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, cut)
            buffer = buffer.slice(cut + 2)
            const data = block
              .split('\n')
              .filter((line) => {
                if (line.startsWith(':')) comments.push(line)
                return line.startsWith('data:')
              })
              .map((line) => line.slice(5).trimStart())
              .join('\n')
            if (!data) continue
            const message = JSON.parse(data) as Record<string, unknown>
            assertServerMessage(message, 'subscriptions/listen')
            queue.push(message)
            waiter?.()
          }
        }
      } catch {
        // aborted by close()
      }
      finish()
    })()
  }
  return {
    status: response.status,
    comments,
    ended,
    // Holding `request` matters: undici links a Request's signal to its parent only weakly, so once the
    // Request is garbage-collected an abort would no longer reach the fetch that carries its signal.
    close: () => {
      void request
      controller.abort()
    },
    async next(timeoutMs = GENEROUS_MS) {
      const deadline = Date.now() + timeoutMs
      while (queue.length === 0 && !done) {
        const left = deadline - Date.now()
        if (left <= 0) throw new Error('no message within the timeout')
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left)
          waiter = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        waiter = undefined
      }
      return queue.shift()
    },
  }
}
