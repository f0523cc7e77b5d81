/**
 * `-H/--header` takes one value per flag, so the README's own form `toolwire list -H 'Authorization: …' <url>`
 * reaches the server (a variadic option would swallow the URL). Real CLI process, real bearerAuth server.
 */
import { execFile } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearerAuth, defineServer, defineTool, InvalidTokenError } from '../src/index.js'
import { createNodeHandler } from '../src/transports/http/node.js'
import { CLI } from './helpers/paths.js'

const TOKEN = 'header-test-token'
const http = createServer()
let url = ''
/** The `X-Trace` header of each authenticated request, to show a second `-H` arrives too. */
const traces: (string | undefined)[] = []

beforeAll(async () => {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
  const server = defineServer({
    name: 'header-probe',
    version: '1.0.0',
    tools: [defineTool({ name: 'whoami', handler: (_args, ctx) => `hello ${ctx.auth?.subject}` })],
    security: {
      auth: bearerAuth({
        resource: url,
        authorizationServers: ['https://issuer.invalid'],
        verifier: (token) => {
          if (token !== TOKEN) throw new InvalidTokenError('unknown token')
          return { subject: 'header-user', scopes: [], token }
        },
      }),
    },
  })
  const handle = createNodeHandler(server)
  http.on('request', (request, response) => {
    traces.push(request.headers['x-trace'] as string | undefined)
    void handle(request, response)
  })
})

afterAll(async () => {
  http.closeAllConnections()
  await new Promise<void>((resolve) => http.close(() => resolve()))
})

function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

describe('-H/--header', () => {
  it("runs the README's form: toolwire list -H 'Authorization: …' <url>", async () => {
    const run = await cli(['list', '-H', `Authorization: Bearer ${TOKEN}`, url])
    expect(run.stderr).toBe('')
    expect(run.stdout).toMatch(/whoami/)
    expect(run.code).toBe(0)
  })

  it('takes several headers by repeating the flag', async () => {
    traces.length = 0
    const run = await cli([
      'call',
      '-H',
      'X-Trace: t-1',
      '-H',
      `Authorization: Bearer ${TOKEN}`,
      url,
      'whoami',
      '--yes',
    ])
    expect(run.stdout).toContain('hello header-user')
    expect(run.code).toBe(0)
    expect(traces.length).toBeGreaterThan(0)
    expect(traces.every((trace) => trace === 't-1')).toBe(true)
  })
})
