/**
 * The same server (test/peers/runtimes/app.mjs, built from dist/) in real runtimes from npm: workerd through
 * Miniflare, Bun and Deno. Each answers server/discover, a valid and an invalid tools/call, and keeps a
 * listen stream that reports a tool list change. workerd forbids code generation, so it must pick the
 * interpreting JSON Schema validator by itself.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../../src/client/index.js'
import { NODE_22, ROOT, peerBin } from '../helpers/paths.js'
import { startUrlProcess, type UrlProcess } from '../helpers/process-url.js'

const nodeForMiniflare =
  Number(process.versions.node.split('.')[0]) >= 22 || !existsSync(NODE_22) ? process.execPath : NODE_22

interface Runtime {
  readonly name: string
  readonly command: string
  readonly args: readonly string[]
  readonly env?: NodeJS.ProcessEnv
  readonly validator: 'ajv' | 'interpreted'
  /**
   * Whether a change made by one request reaches a stream held open by another. Workers bind every stream
   * to the request that created it, so there a listen stream can only be acknowledged; notifications
   * across requests need one Durable Object per listener.
   */
  readonly crossRequestStreams: boolean
}

const RUNTIMES: Runtime[] = [
  {
    name: 'workerd (Miniflare)',
    command: nodeForMiniflare,
    args: ['test/peers/runtimes/workerd-host.mjs'],
    validator: 'interpreted',
    crossRequestStreams: false,
  },
  {
    name: 'Bun',
    command: peerBin('bun'),
    args: ['test/peers/runtimes/bun-entry.mjs'],
    validator: 'ajv',
    crossRequestStreams: true,
  },
  {
    name: 'Deno',
    command: peerBin('deno'),
    args: ['run', '--allow-net', '--allow-read', '--allow-env', 'test/peers/runtimes/deno-entry.mjs'],
    env: { DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
    validator: 'ajv',
    crossRequestStreams: true,
  },
]

/** Why a runtime cannot run here (its npm package shipped no working binary), or undefined. */
function unavailable(runtime: Runtime): string | undefined {
  const probe = spawnSync(runtime.command, ['--version'], { encoding: 'utf8', timeout: 30_000 })
  if (probe.status === 0) return undefined
  return `${runtime.command} --version failed (${probe.error?.message ?? probe.stderr.trim()})`
}

for (const runtime of RUNTIMES) {
  const reason = unavailable(runtime)
  if (reason) console.warn(`skipping ${runtime.name}: ${reason}`)
  describe.skipIf(reason !== undefined)(`toolwire in ${runtime.name}`, { timeout: 90_000 }, () => {
    let running: UrlProcess
    beforeAll(async () => {
      running = await startUrlProcess(runtime.command, runtime.args, { cwd: ROOT, env: runtime.env })
    }, 90_000)
    afterAll(async () => {
      await running?.stop()
    })

    it('answers server/discover', async () => {
      const client = connect({ url: running.url })
      const discovered = await client.discover()
      expect(discovered.supportedVersions).toContain('2026-07-28')
      expect(discovered.capabilities.tools).toBeDefined()
      await client.close()
    })

    it('validates with the expected JSON Schema validator', async () => {
      const client = connect({ url: running.url })
      const result = await client.callTool('validator', {})
      expect(result.content).toEqual([{ type: 'text', text: runtime.validator }])
      await client.close()
    })

    it('runs a valid tools/call and refuses an invalid one with every issue listed', async () => {
      const client = connect({ url: running.url })
      const ok = await client.callTool('add', { a: 2, b: 3 })
      expect(ok.isError).toBeFalsy()
      expect(ok.structuredContent).toEqual({ sum: 5 })
      const bad = await client.callTool('add', { a: 'two', c: 1 })
      expect(bad.isError).toBe(true)
      const text = JSON.stringify(bad.content)
      expect(text).toMatch(/a\b/)
      expect(text).toMatch(/\bb\b/)
      expect(text).toMatch(/\bc\b/)
      await client.close()
    })

    it('keeps a listen stream that reports a tool list change', async () => {
      const client = connect({ url: running.url })
      let seen!: (names: string[]) => void
      const changed = new Promise<string[]>((resolve) => (seen = resolve))
      const subscription = await client.subscribe(
        { toolsListChanged: true },
        { onToolsChanged: (tools) => seen(tools.map((tool) => tool.name)) },
      )
      expect(subscription.acknowledged.toolsListChanged).toBe(true)
      if (!runtime.crossRequestStreams) {
        await subscription.close()
        expect(await subscription.ended).toEqual({ reason: 'closed' })
        await client.close()
        return
      }
      const toggled = await client.callTool('toggle', {})
      const names = await changed
      expect(names.includes('extra')).toBe(
        toggled.content[0]?.type === 'text' && toggled.content[0].text === 'enabled',
      )
      await subscription.close()
      await client.close()
    })
  })
}
