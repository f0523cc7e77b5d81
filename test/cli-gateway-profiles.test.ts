/**
 * `toolwire gateway` with `profiles` and `toolSearch` in its config file, as users run it (the built CLI):
 * a toolwire member and an SDK v1 member over stdio, the official SDK v2 client on a profile's endpoint, a
 * 2024-11-05 SSE client on the same profile, 404 for a profile the file does not name, and precise refusals
 * of a bad file before any member starts.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serversIn } from '../src/cli/client/config.js'
import { parseJsonc } from '../src/cli/client/jsonc.js'
import { toolSearchSettings, type ToolSearchOptions } from '../src/features/tools/search.js'
import { checkProfiles } from '../src/proxy/gateway-profiles.js'
import { nameFilter } from '../src/proxy/name-filter.js'
import { type RunningCli, startCli, stopCli } from './helpers/cli-process.js'
import { CLI, ROOT, testServer } from './helpers/paths.js'

const members = {
  tw: { command: process.execPath, args: [testServer('proxy-upstream.mjs')] },
  v1: { command: process.execPath, args: [join(ROOT, 'test', 'fixtures', 'sdk-v1-server.mjs')] },
}

function configFile(config: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'toolwire-gateway-profiles-')), 'mcp.json')
  writeFileSync(file, JSON.stringify(config))
  return file
}

function toolwire(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 60_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr })
    })
  })
}

type Listed = { structuredContent?: unknown }
const found = (result: Listed): string[] =>
  (result.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name)

describe('toolwire gateway with profiles', () => {
  let gateway: RunningCli | undefined
  let base = ''
  beforeAll(async () => {
    const file = configFile({
      mcpServers: members,
      toolSearch: { minTools: 5 },
      profiles: {
        math: { include: ['tw_sum', 'v1_add', 'tw_pid'], toolSearch: { minTools: 1, pinned: ['v1_add'] } },
        plain: { include: ['v1_*'], exclude: ['v1_ask_*', 'v1_count_roots'] },
      },
    })
    gateway = await startCli(['gateway', file, '--http', '127.0.0.1:0'])
    base = new URL(gateway.url).origin
  }, 90_000)
  afterAll(() => stopCli(gateway))

  it('serves a profile to the SDK v2 client: its pinned tool and search, calls through search, nothing else', async () => {
    const client = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    const transport = new HttpTransportV2(new URL(`${base}/profiles/math/mcp`))
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(['v1_add', 'search_tools', 'call_tool'])
      const sums = await client.callTool({ name: 'search_tools', arguments: { query: 'sum of numbers' } })
      expect(found(sums)).toContain('tw_sum')
      expect(found(sums).every((name) => ['tw_sum', 'v1_add', 'tw_pid'].includes(name))).toBe(true)
      const sum = await client.callTool({
        name: 'call_tool',
        arguments: { name: 'tw_sum', arguments: { a: 1, b: 2 } },
      })
      expect(sum.structuredContent).toEqual({ sum: 3 })
      for (const name of ['tw_crash', 'v1_grow']) {
        await expect(client.callTool({ name, arguments: {} })).rejects.toThrow(/Unknown tool/)
        const via = client.callTool({ name: 'call_tool', arguments: { name, arguments: {} } })
        await expect(via).rejects.toThrow(/Unknown tool/)
      }
    } finally {
      await transport.terminateSession().catch(() => undefined)
      await client.close()
    }
  }, 30_000)

  it('serves the top-level toolSearch on /mcp and a profile without one in full, over SSE too', async () => {
    const merged = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    await merged.connect(new HttpTransportV2(new URL(gateway!.url)))
    expect((await merged.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool'])
    await merged.close()
    const sse = new SdkClient({ name: 'sdk-v1-sse', version: '1.0.0' })
    await sse.connect(new SSEClientTransport(new URL(`${base}/profiles/plain/sse`)))
    try {
      const names = (await sse.listTools()).tools.map((tool) => tool.name).sort()
      expect(names).toEqual(['v1_add', 'v1_cancelled_count', 'v1_grow', 'v1_slow', 'v1_steps'])
      const added = await sse.callTool({ name: 'v1_add', arguments: { a: 2, b: 2 } })
      expect(added.structuredContent).toEqual({ sum: 4 })
    } finally {
      await sse.close()
    }
  }, 30_000)

  it('answers 404 for a profile the file does not name, and the SDK client reports it', async () => {
    const response = await fetch(`${base}/profiles/nope/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(response.status).toBe(404)
    expect(await response.text()).toBe('Not found: this gateway has no profile "nope"\n')
    const other = await fetch(`${base}/elsewhere`)
    expect(other.status).toBe(404)
    expect(await other.text()).toMatch(
      /MCP endpoints are \/mcp, \/servers\/<name>\/mcp and \/profiles\/<name>\/mcp/,
    )
    const client = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    await expect(client.connect(new HttpTransportV2(new URL(`${base}/profiles/nope/mcp`)))).rejects.toThrow(
      /404|no profile/,
    )
  })
})

describe('toolwire gateway refuses a bad profiles config', () => {
  it('names the problem and the file, exit status 2', async () => {
    const cases: [object, RegExp][] = [
      [{ profiles: { 'a b': {} } }, /profiles: "a b" is not a profile name/],
      [{ profiles: { ops: { includes: ['tw_*'] } } }, /profiles\.ops has unknown keys includes/],
      [
        { profiles: { ops: { toolSearch: { minTools: 'many' } } } },
        /profiles\.ops\.toolSearch\.minTools must be/,
      ],
      [{ toolSearch: 'on' }, /toolSearch must be true or an object/],
    ]
    for (const [config, message] of cases) {
      const file = configFile({ mcpServers: { tw: members.tw }, ...config })
      const run = await toolwire(['gateway', file, '--http', '127.0.0.1:0'])
      expect(run.code, String(message)).toBe(2)
      expect(run.stderr).toMatch(message)
      expect(run.stderr).toContain(file)
    }
    const pinned = configFile({
      mcpServers: { tw: members.tw },
      profiles: { ops: { include: ['tw_sum'], toolSearch: { pinned: ['tw_pid'] } } },
    })
    const run = await toolwire(['gateway', pinned, '--http', '127.0.0.1:0'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(
      /profiles\.ops\.toolSearch\.pinned names "tw_pid", which the profile's include\/exclude leave out/,
    )
  }, 90_000)
})

describe('the configurations the docs show', () => {
  it('pass the checks toolwire gateway makes, and their profiles keep what the comments say', () => {
    const blocks = ['docs/bridge.md', 'docs/tool-search.md'].flatMap((page) =>
      [...readFileSync(join(ROOT, page), 'utf8').matchAll(/```jsonc\n([\s\S]*?)```/g)]
        .map((match) => match[1] as string)
        .filter((block) => block.includes('"profiles"')),
    )
    expect(blocks).toHaveLength(2)
    for (const block of blocks) {
      const config = parseJsonc(block) as Record<string, unknown>
      expect(serversIn(configFile(config)).length).toBeGreaterThan(0)
      const profiles = checkProfiles(config.profiles)
      toolSearchSettings(config.toolSearch as ToolSearchOptions)
      for (const profile of Object.values(profiles)) {
        const { pinned } = profile.toolSearch ? toolSearchSettings(profile.toolSearch) : { pinned: [] }
        expect(pinned.every(nameFilter(profile))).toBe(true)
      }
    }
    const triage = nameFilter(
      checkProfiles((parseJsonc(blocks[0] as string) as { profiles: unknown }).profiles).triage!,
    )
    expect(['github_create_issue', 'github_search_code', 'docs_search'].every(triage)).toBe(true)
    expect(['github_lock_issue', 'fs_read_file', 'github_merge_pull_request'].some(triage)).toBe(false)
  })
})
