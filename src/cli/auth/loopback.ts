/**
 * The loopback redirect listener for `toolwire login` (RFC 8252 §7.3): 127.0.0.1 on a free port, one
 * callback path. Any local process or web page can send a request there, so a response counts only when it
 * carries the `state` of the authorization request in progress (RFC 6749 §10.12, authorization §Open
 * Redirection): another one is answered with an error page and ignored, and the wait goes on until the real
 * response arrives or the login's signal ends it. One forged request cannot end (or hijack) the login.
 */
import { timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface LoopbackListener {
  readonly redirectUri: string
  /**
   * Resolves with the full callback URL the browser was sent to, the first one whose `state` is `state`.
   * Call it before showing the authorization URL, so no response can arrive before it is expected.
   */
  callback(state: string, signal: AbortSignal): Promise<URL>
  close(): Promise<void>
}

const page = (text: string): string => `<!doctype html><meta charset="utf-8"><title>toolwire</title>
<p>${text}</p>`
const FINISHED = page('Authorization finished. You can close this window and return to the terminal.')
const IGNORED = page(
  'This response does not belong to the login in progress and was ignored. ' +
    'Finish the authorization in the window the terminal opened.',
)

function sameState(received: string | null, expected: string): boolean {
  if (received === null) return false
  const a = Buffer.from(received)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export async function listenForCallback(): Promise<LoopbackListener> {
  let waiting: { state: string; deliver: (url: URL) => void } | undefined
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', redirectBase)
    const answered = ['code', 'error', 'iss'].some((name) => url.searchParams.has(name))
    if (request.method !== 'GET' || url.pathname !== '/callback' || !answered) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found')
      return
    }
    if (!waiting || !sameState(url.searchParams.get('state'), waiting.state)) {
      response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(IGNORED)
      return
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(FINISHED)
    waiting.deliver(url)
    waiting = undefined
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const redirectBase = `http://127.0.0.1:${port}`
  return {
    redirectUri: `${redirectBase}/callback`,
    callback: (state, signal) =>
      new Promise<URL>((resolve, reject) => {
        if (signal.aborted) return reject(new Error('Login cancelled'))
        const entry = {
          state,
          deliver: (url: URL) => {
            signal.removeEventListener('abort', onAbort)
            resolve(url)
          },
        }
        const onAbort = (): void => {
          if (waiting === entry) waiting = undefined
          reject(new Error('Login cancelled'))
        }
        signal.addEventListener('abort', onAbort, { once: true })
        waiting = entry
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
