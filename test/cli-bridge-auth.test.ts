/**
 * Downstream auth flags of `toolwire bridge --http` and `toolwire gateway`, as users run them (real CLI
 * processes): a shared token from `--bearer-token-env`, and OAuth access tokens checked with `--jwks-url`
 * / `--issuer` against a real authorization server (oidc-provider, client credentials grant). A call
 * without a token, or with a wrong one, is refused with 401; one with a good token passes.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { CLI, EVERYTHING_SERVER as EVERYTHING, ROOT, testServer } from './helpers/paths.js'
import { ROBOT_CLIENT, startAuthorizationServer } from './helpers/oidc.js'
import { textOf } from './helpers/wait.js'

const UPSTREAM = testServer('proxy-upstream.mjs')

interface Served {
  readonly url: string
  readonly child: ChildProcess
}

const started: Served[] = []

function start(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = spawn(process.execPath, [CLI, command, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start: ${stderr}`)), 30_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${command} exited (${code}): ${stderr}`))
    })
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer)
      const served = { url: line, child }
      started.push(served)
      resolve(served)
    })
  })
}

afterAll(async () => {
  await Promise.all(
    started.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve()
          child.once('exit', () => resolve())
          child.kill('SIGTERM')
        }),
    ),
  )
})

/** A port free right now, for a server whose URL (its OAuth resource) must be known before it starts. */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

async function callPid(url: string, token?: string): Promise<string> {
  const client = connect(
    { url, ...(token !== undefined && { headers: { authorization: `Bearer ${token}` } }) },
    { warn: () => {} },
  )
  try {
    return textOf(await client.callTool('pid', {}))
  } finally {
    await client.close()
  }
}

/** The HTTP status of an unauthenticated (or badly authenticated) MCP request, and its challenge. */
async function refusal(url: string, token?: string): Promise<{ status: number; challenge: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} }),
  })
  await response.body?.cancel()
  return { status: response.status, challenge: response.headers.get('www-authenticate') }
}

describe('toolwire bridge --bearer-token-env', () => {
  it('refuses a call without the token or with another, and passes one with it', async () => {
    const bridge = await start(
      'bridge',
      ['--http', '127.0.0.1:0', '--bearer-token-env', 'BRIDGE_TOKEN', '--', process.execPath, UPSTREAM],
      { BRIDGE_TOKEN: 'let-me-in-0123456789' },
    )
    const missing = await refusal(bridge.url)
    expect(missing.status).toBe(401)
    expect(missing.challenge).toMatch(/^Bearer /)
    expect((await refusal(bridge.url, 'wrong-token')).status).toBe(401)
    await expect(callPid(bridge.url)).rejects.toThrow()
    expect(await callPid(bridge.url, 'let-me-in-0123456789')).toMatch(/^\d+$/)
  }, 60_000)

  it('fails at start, naming the variable, when it is not set', async () => {
    await expect(
      start('bridge', ['--http', '127.0.0.1:0', '--bearer-token-env', 'NO_SUCH_TOKEN_VAR', '--', 'node']),
    ).rejects.toThrow(/NO_SUCH_TOKEN_VAR: that variable is not set/)
  })
})

describe('toolwire gateway --bearer-token-env', () => {
  it('protects the merged endpoint and each member’s', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'toolwire-gateway-auth-')), 'mcp.json')
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { tw: { command: process.execPath, args: [UPSTREAM] } } }),
    )
    const gateway = await start(
      'gateway',
      [file, '--http', '127.0.0.1:0', '--bearer-token-env', 'GATEWAY_TOKEN'],
      { GATEWAY_TOKEN: 'gateway-secret-0123456789' },
    )
    const member = gateway.url.replace(/\/mcp$/, '/servers/tw/mcp')
    expect((await refusal(gateway.url)).status).toBe(401)
    expect((await refusal(member)).status).toBe(401)
    const client = connect(
      { url: gateway.url, headers: { authorization: 'Bearer gateway-secret-0123456789' } },
      { warn: () => {} },
    )
    try {
      expect(textOf(await client.callTool('tw_pid', {}))).toMatch(/^\d+$/)
    } finally {
      await client.close()
    }
    expect(await callPid(member, 'gateway-secret-0123456789')).toMatch(/^\d+$/)
  }, 60_000)
})

describe('toolwire bridge --jwks-url --issuer', () => {
  it('passes a call with an access token from the authorization server, refuses one without', async () => {
    const as = await startAuthorizationServer({ resourceScopes: 'tools', clients: [ROBOT_CLIENT] })
    try {
      const port = await freePort()
      const bridge = await start('bridge', [
        '--http',
        `127.0.0.1:${port}`,
        '--issuer',
        as.issuer,
        '--jwks-url',
        `${as.issuer}/jwks`,
        '--',
        process.execPath,
        UPSTREAM,
      ])
      expect(bridge.url).toBe(`http://127.0.0.1:${port}/mcp`)
      const missing = await refusal(bridge.url)
      expect(missing.status).toBe(401)
      expect(missing.challenge).toContain('resource_metadata=')
      expect((await refusal(bridge.url, 'not.a.jwt')).status).toBe(401)
      // The client finds the authorization server through the bridge's metadata and gets a token for it.
      const client = connect(
        { url: bridge.url },
        {
          warn: () => {},
          auth: {
            clientCredentials: { clientId: 'robot', clientSecret: 'robot-secret-value', scope: 'tools' },
          },
        },
      )
      try {
        expect(textOf(await client.callTool('pid', {}))).toMatch(/^\d+$/)
      } finally {
        await client.close()
      }
    } finally {
      await as.close()
    }
  }, 60_000)
})

describe('toolwire gateway --jwks-url --issuer', () => {
  it('makes each member endpoint a resource of its own, with its own metadata and tokens', async () => {
    const as = await startAuthorizationServer({ resourceScopes: 'tools', clients: [ROBOT_CLIENT] })
    try {
      const file = join(mkdtempSync(join(tmpdir(), 'toolwire-gateway-oauth-')), 'mcp.json')
      writeFileSync(
        file,
        JSON.stringify({ mcpServers: { tw: { command: process.execPath, args: [UPSTREAM] } } }),
      )
      const port = await freePort()
      const gateway = await start('gateway', [
        file,
        '--http',
        `127.0.0.1:${port}`,
        '--issuer',
        as.issuer,
        '--jwks-url',
        `${as.issuer}/jwks`,
      ])
      const member = `http://127.0.0.1:${port}/servers/tw/mcp`
      const missing = await refusal(member)
      expect(missing.status).toBe(401)
      const metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/servers/tw/mcp`
      expect(missing.challenge).toContain(`resource_metadata="${metadataUrl}"`)
      const metadata = (await (await fetch(metadataUrl)).json()) as { resource?: string }
      expect(metadata.resource).toBe(member)
      const credentials = { clientId: 'robot', clientSecret: 'robot-secret-value', scope: 'tools' }
      for (const [url, tool] of [
        [member, 'pid'],
        [gateway.url, 'tw_pid'],
      ] as const) {
        const client = connect({ url }, { warn: () => {}, auth: { clientCredentials: credentials } })
        try {
          expect(textOf(await client.callTool(tool, {}))).toMatch(/^\d+$/)
        } finally {
          await client.close()
        }
      }
    } finally {
      await as.close()
    }
  }, 60_000)
})

describe('toolwire bridge --no-rate-limit', () => {
  /** How many of `count` calls in a row come back without a tool error. */
  async function served(url: string, count: number): Promise<number> {
    const client = connect({ url }, { warn: () => {} })
    try {
      let ok = 0
      for (let i = 0; i < count; i++)
        if ((await client.callTool('get-sum', { a: i, b: 1 })).isError !== true) ok++
      return ok
    } finally {
      await client.close()
    }
  }

  // server-everything has no rate limit of its own: what limits is the bridge.
  it('lets a load test past the default 120 calls a minute per tool', async () => {
    const limited = await start('bridge', ['--http', '127.0.0.1:0', '--', process.execPath, EVERYTHING])
    expect(await served(limited.url, 125)).toBe(120)
    const open = await start('bridge', [
      '--http',
      '127.0.0.1:0',
      '--no-rate-limit',
      '--',
      process.execPath,
      EVERYTHING,
    ])
    expect(await served(open.url, 125)).toBe(125)
  }, 60_000)
})
