/**
 * The loopback redirect listener for `toolwire login` (RFC 8252 §7.3): 127.0.0.1 on a free port, one
 * callback path, and the first request there that carries `code`, `error` or `iss` ends the wait.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface LoopbackListener {
  readonly redirectUri: string
  /** Resolves with the full callback URL the browser was sent to. */
  callback(signal: AbortSignal): Promise<URL>
  close(): Promise<void>
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>toolwire</title>
<p>Authorization finished. You can close this window and return to the terminal.</p>`

export async function listenForCallback(): Promise<LoopbackListener> {
  let deliver: (url: URL) => void = () => {}
  const arrived = new Promise<URL>((resolve) => (deliver = resolve))
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', redirectBase)
    const answered = ['code', 'error', 'iss'].some((name) => url.searchParams.has(name))
    if (request.method !== 'GET' || url.pathname !== '/callback' || !answered) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found')
      return
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
    deliver(url)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const redirectBase = `http://127.0.0.1:${port}`
  return {
    redirectUri: `${redirectBase}/callback`,
    callback: (signal) =>
      new Promise<URL>((resolve, reject) => {
        const onAbort = (): void => reject(new Error('Login cancelled'))
        if (signal.aborted) return onAbort()
        signal.addEventListener('abort', onAbort, { once: true })
        void arrived.then(resolve)
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
