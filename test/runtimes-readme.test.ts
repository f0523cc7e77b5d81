/**
 * The Bun and Deno rows of the README's "Where it runs" table, run as written (only `port: 3000` becomes
 * `port: 0`, a free port) in the real runtimes from npm: a normal request is answered, and a DNS-rebinding
 * request (a foreign Host and Origin reaching the loopback listener) gets 403 (basic/transports/streamable-http
 * §Security Warning).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { meta } from './helpers/http.js'
import { ROOT } from './helpers/paths.js'
import { startUrlProcess, type UrlProcess } from './helpers/process-url.js'

const bin = (name: string): string => join(ROOT, 'node_modules', '.bin', name)

/** The code cell of a row of the README's "Where it runs" table. */
function readmeRow(where: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const line = readme.split('\n').find((row) => row.startsWith(`| ${where} `))
  const code = line && /`([^`]+)`/.exec(line.split('|')[2] ?? '')?.[1]
  if (!code) throw new Error(`README has no "Where it runs" row for ${where}`)
  return code
}

/** A module that defines the runtime test server, runs the README snippet and prints where it listens. */
function entry(snippet: string): string {
  const onFreePort = snippet.replace('port: 3000', 'port: 0')
  expect(onFreePort).not.toBe(snippet)
  const dist = pathToFileURL(join(ROOT, 'dist', 'index.js')).href
  const app = pathToFileURL(join(ROOT, 'test', 'runtimes', 'app.mjs')).href
  return [
    `import { createFetchHandler } from ${JSON.stringify(dist)}`,
    `import { server } from ${JSON.stringify(app)}`,
    `const served = ${onFreePort}`,
    'const port = served.port ?? (await served.addr).port',
    'console.log(`LISTENING http://127.0.0.1:${port}/mcp`)',
  ].join('\n')
}

interface Row {
  readonly where: string
  readonly command: string
  readonly args: (code: string) => string[]
  readonly env?: NodeJS.ProcessEnv
}

const ROWS: Row[] = [
  { where: 'Bun', command: bin('bun'), args: (code) => ['--eval', code] },
  {
    where: 'Deno',
    command: bin('deno'),
    args: (code) => ['eval', '--ext=js', code],
    env: { DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
  },
]

/** A discover POST with the given Host and Origin (node:http, since fetch does not let a caller set Host). */
function post(url: string, host: string, origin: string): Promise<number> {
  const target = new URL(url)
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: { _meta: meta() },
  })
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          host,
          origin,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-method': 'server/discover',
          'mcp-protocol-version': '2026-07-28',
        },
        timeout: 30_000,
      },
      (response) => {
        response.resume()
        response.once('end', () => resolve(response.statusCode ?? 0))
      },
    )
    req.once('timeout', () => req.destroy(new Error('no answer in 30 s')))
    req.once('error', reject)
    req.end(body)
  })
}

for (const row of ROWS) {
  const probe = spawnSync(row.command, ['--version'], { encoding: 'utf8', timeout: 30_000 })
  const reason = probe.status === 0 ? undefined : `${row.command} --version failed`
  if (reason) console.warn(`skipping ${row.where}: ${reason}`)
  describe.skipIf(reason !== undefined)(
    `the README's ${row.where} row, as written`,
    { timeout: 90_000 },
    () => {
      let running: UrlProcess
      beforeAll(async () => {
        const code = entry(readmeRow(row.where))
        running = await startUrlProcess(row.command, row.args(code), { cwd: ROOT, env: row.env })
      }, 90_000)
      afterAll(async () => {
        await running?.stop()
      })

      it('answers a request made to its own address', async () => {
        const { host } = new URL(running.url)
        expect(await post(running.url, host, `http://${host}`)).toBe(200)
      })

      it('refuses a DNS-rebinding request (foreign Host and Origin) with 403', async () => {
        expect(await post(running.url, 'evil.example', 'http://evil.example')).toBe(403)
      })
    },
  )
}
