/**
 * DNS rebinding beyond `serveNode`: a `createNodeHandler` mounted on a loopback listener refuses foreign
 * Host names by itself, and `createFetchHandler` takes `allowedHosts` / `allowedOrigins`.
 */
import { createServer, request as httpRequest, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool } from '../../src/index.js'
import { createNodeHandler } from '../../src/transports/http/node.js'
import { meta, standardHeaders } from '../helpers/http.js'

const server = defineServer({
  name: 'rebinding',
  version: '1.0.0',
  tools: [defineTool({ name: 'now', handler: () => 'tick' })],
})
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } })

let mounted: HttpServer
let port: number
beforeAll(async () => {
  mounted = createServer(createNodeHandler(server))
  await new Promise<void>((resolve) => mounted.listen(0, '127.0.0.1', resolve))
  port = (mounted.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => mounted.close(() => resolve())))

/** A POST with exactly these Host and Origin headers (fetch would choose Host itself). */
function post(host: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...standardHeaders('tools/list', {}), host }
    if (origin) headers.origin = origin
    const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(BODY)
  })
}

describe('createNodeHandler on a loopback listener', () => {
  it('refuses a foreign Host even with a matching Origin (403)', async () => {
    expect(await post('evil.example', 'http://evil.example')).toBe(403)
    expect(await post(`evil.example:${port}`)).toBe(403)
  })

  it('serves loopback names and loopback origins', async () => {
    expect(await post(`127.0.0.1:${port}`)).toBe(200)
    expect(await post(`localhost:${port}`, `http://localhost:${port}`)).toBe(200)
  })
})

describe('createFetchHandler with allowedHosts / allowedOrigins', () => {
  const call = (handler: (r: Request) => Promise<Response>, host: string, origin?: string) => {
    const headers = new Headers(standardHeaders('tools/list', {}))
    headers.set('host', host)
    if (origin) headers.set('origin', origin)
    return handler(new Request('http://localhost/mcp', { method: 'POST', headers, body: BODY }))
  }

  it('accepts only the listed hosts and origins', async () => {
    const handler = createFetchHandler(server, {
      allowedHosts: ['localhost'],
      allowedOrigins: ['http://localhost:5173'],
    })
    expect((await call(handler, 'evil.example', 'http://evil.example')).status).toBe(403)
    expect((await call(handler, 'localhost:8787', 'http://evil.example')).status).toBe(403)
    expect((await call(handler, 'localhost:8787', 'http://localhost:5173')).status).toBe(200)
  })
})
