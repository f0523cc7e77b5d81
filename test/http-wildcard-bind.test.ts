/**
 * DNS rebinding on a wildcard bind (basic/transports/streamable-http §Security Warning): a server bound to
 * 0.0.0.0 answers only the machine's own names and addresses (plus `allowedHosts`), on `serveNode`, on
 * `createNodeHandler` mounted without a policy, and on the CLI's `serve` and `gateway`; bound beyond loopback
 * with no authentication it warns at start. Real listeners, reached over 127.0.0.1 with a forged Host.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, type Server as NodeServer } from 'node:http'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { hostname, networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineServer } from '../src/server.js'
import { createNodeHandler, type RunningServer, serveNode } from '../src/transports/http/node.js'
import { meta, standardHeaders } from './helpers/http.js'
import { CLI, ROOT, testServer } from './helpers/paths.js'
import { rawRequest } from './helpers/raw-request.js'

const EVIL = 'rebind.evil.example'

/** A tools/list POST to `path` on 127.0.0.1:port with the given Host (and an Origin naming that Host). */
async function statusFor(
  port: number,
  host: string,
  path = '/mcp',
  origin = `http://${host}`,
): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } })
  const answer = await rawRequest(new URL(`http://127.0.0.1:${port}${path}`), {
    method: 'POST',
    headers: { ...standardHeaders('tools/list', {}), host, origin },
    body,
  })
  return answer.status
}

/** A non-loopback address of this machine, as it goes in a Host header, if it has one. */
function interfaceAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces()))
    for (const entry of entries ?? [])
      if (!entry.internal) return entry.family === 'IPv6' ? `[${entry.address.split('%')[0]}]` : entry.address
  return undefined
}

const portOf = (url: string): number => Number(new URL(url).port)

describe('serveNode bound to 0.0.0.0', () => {
  const warnings: string[] = []
  let running: RunningServer
  let port: number
  beforeAll(async () => {
    const server = defineServer({
      name: 'wild',
      version: '1.0.0',
      logger: { warn: (message) => warnings.push(message), error: () => undefined },
    })
    running = await serveNode(server, { host: '0.0.0.0', port: 0 })
    port = portOf(running.url)
  })
  afterAll(() => running.close())

  it('refuses a rebinding Host with a matching Origin (403)', async () => {
    expect(await statusFor(port, `${EVIL}:${port}`)).toBe(403)
    expect(await statusFor(port, EVIL)).toBe(403)
  })

  it("accepts the machine's own names and addresses", async () => {
    const own = [`127.0.0.1:${port}`, `localhost:${port}`, `${hostname().toLowerCase()}:${port}`]
    const address = interfaceAddress()
    if (address !== undefined) own.push(`${address}:${port}`)
    for (const host of own) expect([host, await statusFor(port, host)]).toEqual([host, 200])
  })

  it('warns once at start that anyone who can reach it can call every tool', () => {
    expect(warnings.filter((line) => line.includes('no authentication'))).toHaveLength(1)
    expect(warnings.join('\n')).toMatch(/anyone who can reach this address can call every tool/)
    expect(warnings.join('\n')).toMatch(/bind 127\.0\.0\.1/)
  })
})

describe('wildcard binds and allowedHosts', () => {
  it('allowedHosts extends the names a 0.0.0.0 bind accepts; others stay refused', async () => {
    const server = defineServer({ name: 'wild', version: '1.0.0', logger: { warn() {}, error() {} } })
    const running = await serveNode(server, { host: '0.0.0.0', port: 0, allowedHosts: ['mcp.example.com'] })
    const port = portOf(running.url)
    try {
      expect(await statusFor(port, `mcp.example.com:${port}`)).toBe(200)
      expect(await statusFor(port, `127.0.0.1:${port}`)).toBe(200)
      expect(await statusFor(port, `${EVIL}:${port}`)).toBe(403)
    } finally {
      await running.close()
    }
  })

  it('createNodeHandler without a policy: a non-loopback connection accepts only this machine', async () => {
    const address = interfaceAddress()
    if (address === undefined || address.startsWith('[')) return // needs an IPv4 interface to connect over
    const server = defineServer({ name: 'mounted', version: '1.0.0' })
    const http: NodeServer = createServer(createNodeHandler(server))
    await new Promise<void>((resolve) => http.listen(0, '0.0.0.0', resolve))
    const port = (http.address() as AddressInfo).port
    const post = (host: string) =>
      rawRequest(new URL(`http://${address}:${port}/mcp`), {
        method: 'POST',
        headers: { ...standardHeaders('tools/list', {}), host, origin: `http://${host}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }),
      })
    try {
      expect((await post(`${EVIL}:${port}`)).status).toBe(403)
      expect((await post(`${address}:${port}`)).status).toBe(200)
    } finally {
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  })

  it('does not warn on a loopback bind', async () => {
    const warnings: string[] = []
    const server = defineServer({
      name: 'local',
      version: '1.0.0',
      logger: { warn: (message) => warnings.push(message), error: () => undefined },
    })
    const running = await serveNode(server, { host: '127.0.0.1', port: 0 })
    await running.close()
    expect(warnings.filter((line) => line.includes('no authentication'))).toEqual([])
  })
})

interface Started {
  readonly url: string
  readonly child: ChildProcess
  stderr(): string
}

/** `toolwire <args>`, resolved with the URL it prints once it listens and its stderr so far. */
function startCli(args: readonly string[]): Promise<Started> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start: ${stderr}`)), 30_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited (${code}): ${stderr}`))
    })
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer)
      resolve({ url: line.trim().split(/\s+/).pop() ?? '', child, stderr: () => stderr })
    })
  })
}

function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    started.child.once('exit', () => resolve())
    started.child.kill('SIGTERM')
  })
}

describe('the CLI bound to 0.0.0.0', () => {
  let serve: Started | undefined
  let local: Started | undefined
  let gateway: Started | undefined
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-wild-'))
    const config = join(dir, 'mcp.json')
    const member = { command: process.execPath, args: [testServer('proxy-upstream.mjs')] }
    writeFileSync(config, JSON.stringify({ mcpServers: { tw: member } }))
    ;[serve, local, gateway] = await Promise.all([
      startCli(['serve', testServer('core-server.mjs'), '--http', '0.0.0.0:0']),
      startCli(['serve', testServer('core-server.mjs'), '--http', '127.0.0.1:0']),
      startCli(['gateway', config, '--http', '0.0.0.0:0']),
    ])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([stop(serve), stop(local), stop(gateway)])
  })

  it('serve: refuses a rebinding Host, accepts its own, and warns on stderr', async () => {
    const port = portOf(serve!.url)
    expect(await statusFor(port, `${EVIL}:${port}`)).toBe(403)
    expect(await statusFor(port, `localhost:${port}`)).toBe(200)
    await expect.poll(() => serve!.stderr(), { timeout: 10_000 }).toMatch(/can call every tool/)
    expect(serve!.stderr()).toMatch(/--bearer-token-env/)
  })

  it('serve on 127.0.0.1 says nothing of the kind', async () => {
    const port = portOf(local!.url)
    expect(await statusFor(port, `localhost:${port}`)).toBe(200)
    expect(local!.stderr()).not.toMatch(/no authentication/)
  })

  it("gateway: /mcp and /servers/<name>/mcp refuse a rebinding Host and take the machine's own", async () => {
    const port = portOf(gateway!.url)
    for (const path of ['/mcp', '/servers/tw/mcp']) {
      expect([path, await statusFor(port, `${EVIL}:${port}`, path)]).toEqual([path, 403])
      expect([path, await statusFor(port, `127.0.0.1:${port}`, path)]).toEqual([path, 200])
      expect([path, await statusFor(port, `${hostname().toLowerCase()}:${port}`, path)]).toEqual([path, 200])
    }
    await expect.poll(() => gateway!.stderr(), { timeout: 10_000 }).toMatch(/can call every tool/)
  })
})
