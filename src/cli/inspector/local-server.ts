/**
 * The inspector's local web server. It holds no secret of its own, but it can call any tool of the server
 * under inspection, so the page is guarded like a credential: it listens on 127.0.0.1 only; every request must
 * name this host and port in `Host` (a DNS-rebinding page names its own domain) and, when a browser sends
 * one, the same `Origin` (another site's page may post to localhost); the API needs the random token of the
 * printed URL. The page itself runs under a strict Content-Security-Policy: only its own script, no inline
 * script or style, images and audio from data: URLs only, no forms, no connections but to here, and frames
 * only from the sandbox proxy's own listener (sandbox-server.ts), where tool views run on another origin.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { inspectorAssets } from './assets.js'
import { handleApi } from './api.js'
import { serveSandbox } from './sandbox-server.js'
import type { InspectorSession } from './session.js'

/** Largest request body the local API reads (a tool's arguments typed in the page). */
export const MAX_API_BODY_BYTES = 4 * 1024 * 1024

/** The page's policy; `sandboxOrigin` is the one origin it may frame (tool views, through the proxy). */
export const contentSecurityPolicy = (sandboxOrigin: string): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    'img-src data:',
    'media-src data:',
    "connect-src 'self'",
    `frame-src ${sandboxOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')

/** Chunks the page loads on demand (esbuild's code splitting: the view host only when a view is shown). */
const CHUNK = /^\/chunks\/[A-Za-z0-9_-]+\.js$/

const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
}

export interface RunningInspector {
  /** The URL to open, token included. */
  readonly url: string
  readonly port: number
  readonly token: string
  /** The sandbox proxy's origin (another port): where tool views run. */
  readonly sandboxOrigin: string
  close(): Promise<void>
}

function sameToken(given: string | null | undefined, token: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
  response.end(`${message}\n`)
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_API_BODY_BYTES)
      throw new RangeError(`the request body exceeds ${MAX_API_BODY_BYTES} bytes`)
    chunks.push(chunk)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  return text === '' ? {} : (JSON.parse(text) as unknown)
}

/** Starts the page's server on 127.0.0.1 (port 0: a free one). */
export async function serveInspector(
  session: InspectorSession,
  options: { port?: number } = {},
): Promise<RunningInspector> {
  const token = randomBytes(24).toString('base64url')
  const assets = inspectorAssets()
  let port = 0
  const hosts = (): Set<string> => new Set([`127.0.0.1:${port}`, `localhost:${port}`])
  const origins = (): Set<string> => new Set([...hosts()].map((host) => `http://${host}`))
  const streams = new Set<ServerResponse>()
  const sandbox = await serveSandbox({ assets, pageOrigins: origins })
  const policy = contentSecurityPolicy(sandbox.origin)

  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1')
      if (!hosts().has(request.headers.host ?? '')) return refuse(response, 403, 'unexpected Host header')
      const origin = request.headers.origin
      if (origin !== undefined && !origins().has(origin))
        return refuse(response, 403, 'unexpected Origin header')
      const asset =
        STATIC[url.pathname] ??
        (CHUNK.test(url.pathname)
          ? { file: url.pathname.slice(1), type: 'text/javascript; charset=utf-8' }
          : undefined)
      if (asset && request.method === 'GET') {
        // The page itself is served only with the token, so a stray visit learns nothing of it.
        if (url.pathname === '/' && !sameToken(url.searchParams.get('token'), token))
          return refuse(response, 401, 'the inspector URL needs its token: use the URL the CLI printed')
        const body = await readFile(join(assets, asset.file)).catch(() => undefined)
        if (body === undefined) return refuse(response, 404, 'not found')
        response.writeHead(200, {
          'content-type': asset.type,
          'content-security-policy': policy,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'cache-control': 'no-store',
        })
        return response.end(body)
      }
      if (!url.pathname.startsWith('/api/')) return refuse(response, 404, 'not found')
      const given = request.headers['x-inspector-token'] ?? url.searchParams.get('token')
      if (!sameToken(Array.isArray(given) ? given[0] : given, token))
        return refuse(response, 401, 'missing or wrong inspector token')
      if (url.pathname === '/api/events' && request.method === 'GET') return openEvents(response)
      if (request.method !== 'POST') return refuse(response, 405, 'the API takes POST')
      if (!(request.headers['content-type'] ?? '').startsWith('application/json'))
        return refuse(response, 415, 'the API takes application/json')
      const body = await readBody(request)
      const answer = await handleApi(session, url.pathname.slice('/api/'.length), body, {
        sandboxOrigin: sandbox.origin,
      })
      response.writeHead(answer.status, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
      })
      response.end(JSON.stringify(answer.body))
    })().catch((error: unknown) => {
      if (response.headersSent) return response.destroy()
      refuse(response, 400, error instanceof Error ? error.message : String(error))
    })
  })

  function openEvents(response: ServerResponse): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    })
    response.write(': inspector events\n\n')
    streams.add(response)
    const stop = session.onEvent((event) => response.write(`data: ${JSON.stringify(event)}\n\n`))
    response.on('close', () => {
      stop()
      streams.delete(response)
    })
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  }).catch(async (error: unknown) => {
    await sandbox.close()
    throw error
  })
  port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    sandboxOrigin: sandbox.origin,
    close: async () => {
      await sandbox.close()
      for (const stream of streams) stream.end()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
