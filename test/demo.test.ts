/** The demo `npm start` serves: each tool does its job and fails clearly on bad input. */
import { execFile, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Script } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { createFetchHandler } from '../src/index.js'
import { fetchServerCard } from '../src/client/index.js'
import { createDemoServer, DEMO_REGISTRY_NAME } from '../src/demo/server.js'
import { meta, post, resultOf } from './helpers/http.js'
import { CLI, ROOT } from './helpers/paths.js'

const fetcher = createFetchHandler(createDemoServer())
const call = async (name: string, args: Record<string, unknown>, extraMeta = {}) =>
  resultOf(await post(fetcher, 'tools/call', { name, arguments: args }, { meta: meta(extraMeta) }))
const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]?.text ?? ''

describe('demo tools', () => {
  it('arithmetic computes and refuses division by zero', async () => {
    expect((await call('arithmetic', { op: 'power', a: 2, b: 10 })).structuredContent).toEqual({
      result: 1024,
    })
    const zero = await call('arithmetic', { op: 'divide', a: 1, b: 0 })
    expect(zero.isError).toBe(true)
    expect(text(zero)).toContain('divide by zero')
    expect((await call('arithmetic', { op: 'sqrt', a: 1, b: 2 })).isError).toBe(true)
  })

  it('convert_units converts length, mass and temperature and refuses mixed kinds', async () => {
    expect((await call('convert_units', { value: 1, from: 'mi', to: 'km' })).structuredContent).toMatchObject(
      {
        unit: 'km',
        value: expect.closeTo(1.609344, 6),
      },
    )
    expect((await call('convert_units', { value: 100, from: 'C', to: 'F' })).structuredContent).toEqual({
      value: 212,
      unit: 'F',
    })
    const mixed = await call('convert_units', { value: 1, from: 'kg', to: 'm' })
    expect(mixed.isError).toBe(true)
  })

  it('text_stats counts words, lines and sentences', async () => {
    const stats = (await call('text_stats', { text: 'The cat sat.\nThe cat ran!', top: 2 })).structuredContent
    expect(stats).toMatchObject({
      words: 6,
      lines: 2,
      sentences: 2,
      topWords: [
        { word: 'cat', count: 2 },
        { word: 'the', count: 2 },
      ],
    })
  })

  it('current_time formats a zone and refuses unknown zones', async () => {
    const paris = (await call('current_time', { timeZone: 'Europe/Paris' })).structuredContent as {
      iso: string
    }
    expect(Date.parse(paris.iso)).not.toBeNaN()
    expect((await call('current_time', { timeZone: 'Mars/Olympus' })).isError).toBe(true)
  })

  it('countdown reports progress every second', async () => {
    const answer = await post(
      fetcher,
      'tools/call',
      { name: 'countdown', arguments: { seconds: 1 } },
      {
        meta: meta({ progressToken: 'c' }),
      },
    )
    expect(answer.messages.filter((m) => m.method === 'notifications/progress').length).toBe(2)
    expect(text(resultOf(answer))).toBe('Waited 1 s.')
  })
})

describe('demo app (MCP Apps)', () => {
  it('roll_dice rolls within bounds and names its ui:// view, which is served as an app view', async () => {
    const result = await call('roll_dice', { sides: 20, count: 3 })
    const { rolls, total } = result.structuredContent as { rolls: number[]; total: number }
    expect(rolls).toHaveLength(3)
    for (const value of rolls) expect(value >= 1 && value <= 20 && Number.isInteger(value)).toBe(true)
    expect(total).toBe(rolls.reduce((sum, value) => sum + value, 0))
    expect((await call('roll_dice', { sides: 1 })).isError).toBe(true)
    const listed = resultOf(await post(fetcher, 'tools/list', {}, { meta: meta() }))
    const tool = (listed.tools as { name: string; _meta?: Record<string, unknown> }[]).find(
      (t) => t.name === 'roll_dice',
    )
    expect(tool?._meta?.ui).toEqual({ resourceUri: 'ui://demo/dice' })
    const read = resultOf(await post(fetcher, 'resources/read', { uri: 'ui://demo/dice' }, { meta: meta() }))
    const [contents] = read.contents as { mimeType: string; text: string; _meta: unknown }[]
    expect(contents?.mimeType).toBe('text/html;profile=mcp-app')
    expect(contents?.text).toMatch(/^<!doctype html>/)
    expect(contents?.text).toContain("request('ui/initialize'")
    expect(contents?._meta).toEqual({ ui: { prefersBorder: true } })
    // The view's script compiles (it runs in a browser; here its syntax is all that can be checked).
    const script = /<script>([\s\S]*)<\/script>/.exec(contents?.text ?? '')?.[1] ?? ''
    expect(script).toContain('ui/notifications/initialized')
    expect(() => new Script(script)).not.toThrow()
  })
})

describe('npm start', () => {
  it('serves the demo and its server card, and prints how to call it', async () => {
    const child = spawn(process.execPath, [CLI, 'demo', '--http', '127.0.0.1:0'], { stdio: 'pipe' })
    try {
      const banner = await new Promise<string>((resolve, reject) => {
        let out = ''
        const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 10_000)
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk
          if (out.includes('arithmetic')) {
            clearTimeout(timer)
            resolve(out)
          }
        })
      })
      const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(banner)?.[0] ?? ''
      expect(url).not.toBe('')
      const result = resultOf(
        await post(
          (r) => fetch(r),
          'tools/call',
          { name: 'arithmetic', arguments: { op: 'add', a: 2, b: 3 } },
          {},
          url,
        ),
      )
      expect(result.structuredContent).toEqual({ result: 5 })
      // Its server card, by its registry name (package.json's mcpName), as a client and the CLI read it.
      const card = await fetchServerCard(url)
      expect(card).toMatchObject({ name: DEMO_REGISTRY_NAME, title: 'toolwire demo', version: '0.1.0' })
      expect(card.remotes?.[0]?.url).toBe(url)
      expect(DEMO_REGISTRY_NAME).toBe(
        (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { mcpName: string }).mcpName,
      )
      const printed = await new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [CLI, 'card', url], { timeout: 30_000 }, (error, stdout) =>
          error ? reject(error) : resolve(stdout),
        ),
      )
      expect(printed).toContain(`toolwire demo 0.1.0 (${DEMO_REGISTRY_NAME})`)
    } finally {
      child.kill('SIGTERM')
    }
  })
})
