/**
 * The Bun, Deno and Hono rows of the "Where it runs" table (docs/transports.md), run as written in the real
 * runtimes from npm (Bun's and Deno's rows with `port: 0` for `port: 3000`; Hono's in an app served on
 * loopback by Bun, Deno and @hono/node-server): a normal request is answered, and a DNS-rebinding request (a
 * foreign Host and Origin reaching the loopback listener) gets 403 (basic/transports/streamable-http
 * §Security Warning).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { meta } from '../helpers/http.js'
import { ROOT, peerBin } from '../helpers/paths.js'
import { startUrlProcess, type UrlProcess } from '../helpers/process-url.js'

/** The code spans of a row of the "Where it runs" table (docs/transports.md). */
function readmeRow(where: string): string[] {
  const readme = readFileSync(join(ROOT, 'docs', 'transports.md'), 'utf8')
  const line = readme.split('\n').find((row) => row.startsWith(`| ${where} `))
  const spans = [...(line?.split('|')[2] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1] as string)
  if (spans.length === 0) throw new Error(`docs/transports.md has no "Where it runs" row for ${where}`)
  return spans
}

const moduleUrl = (...path: string[]): string => JSON.stringify(pathToFileURL(join(ROOT, ...path)).href)
const PRELUDE = [
  `import { createFetchHandler } from ${moduleUrl('dist', 'index.js')}`,
  `import { server } from ${moduleUrl('test', 'peers', 'runtimes', 'app.mjs')}`,
]
const LISTENING = 'console.log(`LISTENING http://127.0.0.1:${port}/mcp`)'

/** A runtime's own row, run as written but on a free port, printing where it listens. */
function runtimeRow(where: string): string {
  const [snippet = ''] = readmeRow(where)
  const onFreePort = snippet.replace('port: 3000', 'port: 0')
  expect(onFreePort).not.toBe(snippet)
  return [
    ...PRELUDE,
    `const served = ${onFreePort}`,
    'const port = served.port ?? (await served.addr).port',
    LISTENING,
  ].join('\n')
}

/** The Hono row as written, in an app served by `listen` (the runtime's own way, on loopback). */
function honoRow(listen: string[], imports: string[] = []): string {
  const [route = '', handler = ''] = readmeRow('Hono')
  return [
    ...PRELUDE,
    `import { Hono } from ${moduleUrl('node_modules', 'hono', 'dist', 'index.js')}`,
    ...imports,
    'const app = new Hono()',
    `const ${handler}`,
    route,
    ...listen,
  ].join('\n')
}

interface Row {
  readonly name: string
  readonly command: string
  readonly args: (code: string) => string[]
  readonly code: () => string
  readonly env?: NodeJS.ProcessEnv
  /** Why it cannot run here, if it cannot. */
  readonly missing?: string | undefined
}

const BUN = { command: peerBin('bun'), args: (code: string) => ['--eval', code] }
const DENO = {
  command: peerBin('deno'),
  args: (code: string) => ['eval', '--ext=js', code],
  env: { DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
}
const NODE_SERVER = join(ROOT, 'node_modules', '@hono', 'node-server', 'dist', 'index.mjs')

const ROWS: Row[] = [
  { name: 'Bun', ...BUN, code: () => runtimeRow('Bun') },
  { name: 'Deno', ...DENO, code: () => runtimeRow('Deno') },
  {
    name: 'Hono on Bun',
    ...BUN,
    code: () =>
      honoRow([
        "const served = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch })",
        'const port = served.port',
        LISTENING,
      ]),
  },
  {
    name: 'Hono on Deno',
    ...DENO,
    code: () =>
      honoRow([
        "const served = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, app.fetch)",
        'const port = served.addr.port',
        LISTENING,
      ]),
  },
  {
    name: 'Hono on Node (@hono/node-server)',
    command: process.execPath,
    args: (code) => ['--input-type=module', '--eval', code],
    code: () =>
      honoRow(
        [
          "serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, ({ port }) => {",
          `  ${LISTENING}`,
          '})',
        ],
        [`import { serve } from ${JSON.stringify(pathToFileURL(NODE_SERVER).href)}`],
      ),
    missing: existsSync(NODE_SERVER) ? undefined : '@hono/node-server is not installed',
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
  const reason = row.missing ?? (probe.status === 0 ? undefined : `${row.command} --version failed`)
  if (reason) console.warn(`skipping ${row.name}: ${reason}`)
  describe.skipIf(reason !== undefined)(
    `the README's ${row.name} row, as written`,
    { timeout: 90_000 },
    () => {
      let running: UrlProcess
      beforeAll(async () => {
        running = await startUrlProcess(row.command, row.args(row.code()), { cwd: ROOT, env: row.env })
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
