/**
 * The second listener: the sandbox proxy tool views are rendered in (apps §Security Implications, Sandbox
 * proxy: "the Host and the Sandbox MUST have different origins"). The inspector page holds the token that
 * can call every tool, so a view never runs on its origin: the page frames `/proxy` from this listener (another
 * 127.0.0.1 port, so another origin), and the proxy's script puts the view's HTML into an inner iframe
 * sandboxed with `allow-scripts` only (an opaque origin), relaying the view's postMessage JSON-RPC to the page.
 *
 * The proxy document is served under the view's Content-Security-Policy, built from the `_meta.ui.csp` the
 * page passes (checked again here: plain origins only) or the restrictive default, and the inner `srcdoc`
 * document inherits it (apps §Security Implications, Content Security Policy Enforcement). Only the inspector
 * page may frame the proxy (`frame-ancestors`). This listener has no API and no token: nothing here is worth
 * reaching.
 */
import { readFile } from 'node:fs/promises'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { viewContentSecurityPolicy } from '../../client/app-view.js'
import { uiResourceMetaProblems, type UiResourceCsp } from '../../wire/apps.js'
import { isRecord } from '../../wire/jsonrpc.js'

/** The proxy document: no inline script or style, its one script from this origin. */
const PROXY_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>toolwire inspector: tool view</title>
    <script src="/proxy.js"></script>
  </head>
  <body></body>
</html>
`

export interface RunningSandbox {
  /** `http://127.0.0.1:<port>`: the origin views are rendered under. */
  readonly origin: string
  close(): Promise<void>
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
  response.end(`${message}\n`)
}

/** The `csp` query parameter: the view's `_meta.ui.csp` as JSON, or absent for the restrictive default. */
export function proxyPolicy(cspParameter: string | null): string {
  if (cspParameter === null) return viewContentSecurityPolicy({})
  const csp: unknown = JSON.parse(cspParameter)
  if (!isRecord(csp)) throw new TypeError('csp must be a JSON object')
  const problems = uiResourceMetaProblems({ csp }, 'csp', false)
  if (problems.length > 0) throw new TypeError(problems.join('; '))
  return viewContentSecurityPolicy({ csp: csp as UiResourceCsp })
}

/**
 * Starts the sandbox proxy's listener on 127.0.0.1 (a free port). `pageOrigins` are the origins the inspector
 * page may have (its `127.0.0.1` and `localhost` forms): the only ones that may frame the proxy.
 */
export async function serveSandbox(options: {
  readonly assets: string
  readonly pageOrigins: () => ReadonlySet<string>
}): Promise<RunningSandbox> {
  let port = 0
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1')
      // DNS rebinding: a page that rebinds its own domain to 127.0.0.1 names that domain in Host.
      if (!new Set([`127.0.0.1:${port}`, `localhost:${port}`]).has(request.headers.host ?? ''))
        return refuse(response, 403, 'unexpected Host header')
      if (request.method !== 'GET') return refuse(response, 405, 'the sandbox serves GET only')
      const common = {
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      }
      if (url.pathname === '/proxy.js') {
        const body = await readFile(join(options.assets, 'proxy.js'))
        response.writeHead(200, { ...common, 'content-type': 'text/javascript; charset=utf-8' })
        return response.end(body)
      }
      if (url.pathname !== '/proxy') return refuse(response, 404, 'not found')
      const host = url.searchParams.get('host') ?? ''
      if (!options.pageOrigins().has(host)) return refuse(response, 400, 'host must be the inspector page')
      let policy: string
      try {
        policy = proxyPolicy(url.searchParams.get('csp'))
      } catch (error) {
        return refuse(
          response,
          400,
          `unusable csp: ${error instanceof Error ? error.message : String(error)}`,
        )
      }
      response.writeHead(200, {
        ...common,
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `${policy}; form-action 'none'; frame-ancestors ${host}`,
      })
      response.end(PROXY_HTML)
    })().catch((error: unknown) => {
      if (response.headersSent) return response.destroy()
      refuse(response, 500, error instanceof Error ? error.message : String(error))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  port = (server.address() as AddressInfo).port
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
