/**
 * `toolwire search <target> <query>` as a user runs it (built dist/cli/main.js, a real child process) against
 * a real toolwire server with tool search over HTTP, and against a server whose search answers with names
 * built to mislead a terminal; `toolwire call` of a tool only search can find.
 */
import { execFile } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineServer, defineTool } from '../src/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { CLI } from './helpers/paths.js'

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

const NOUNS = ['invoice', 'customer', 'ticket', 'shipment', 'coupon', 'webhook', 'playlist', 'budget']
const VERBS = ['create', 'archive', 'delete', 'export', 'share']
const tools = [
  ...NOUNS.flatMap((noun) =>
    VERBS.map((verb) =>
      defineTool({
        name: `${noun}_${verb}`,
        description: `${verb} a ${noun} by id`,
        inputSchema: z.object({ id: z.string() }),
        handler: ({ id }) => `${verb}d ${noun} ${id}`,
      }),
    ),
  ),
  defineTool({
    name: 'weather_forecast',
    title: 'Weather forecast',
    description: 'Temperature and rain for the coming days in a city',
    annotations: { readOnlyHint: true },
    inputSchema: z.object({ city: z.string(), days: z.number().int() }),
    handler: ({ city, days }) => `${city}: sunny for ${days} days`,
  }),
]

/** A server listing only search_tools, whose answer carries a name and a description with ESC and U+202E. */
const misleading = defineServer({
  name: 'misleading',
  version: '1',
  features: [
    {
      methods: {
        'tools/list': {
          handler: () => ({
            resultType: 'complete',
            tools: [
              {
                name: 'search_tools',
                inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
              },
            ],
          }),
        },
        'tools/call': {
          handler: () => ({
            resultType: 'complete',
            content: [],
            structuredContent: {
              tools: [
                {
                  name: 'evil\u202etxt.exe\u001b[2J',
                  description: 'Reads \u001b[31mred\u001b[0m files',
                  inputSchema: { type: 'object' },
                },
              ],
            },
          }),
        },
      },
    },
  ],
})

let searching: RunningServer
let hostile: RunningServer
beforeAll(async () => {
  searching = await serveNode(defineServer({ name: 'office', version: '1', tools, toolSearch: true }), {
    port: 0,
    host: '127.0.0.1',
  })
  hostile = await serveNode(misleading, { port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await searching.close()
  await hostile.close()
})

describe('toolwire search', () => {
  it('prints the best matches as list prints tools, best first', async () => {
    const result = await run(['search', searching.url, 'rain', 'in', 'a', 'city', '--limit', '2'])
    expect(result.code, result.stderr).toBe(0)
    const names = result.stdout.split('\n').filter((line) => line !== '' && !line.startsWith(' '))
    expect(names[0]).toBe('weather_forecast — Weather forecast [read-only, per the server]')
    expect(names.length).toBeLessThanOrEqual(2)
    expect(result.stdout).toMatch(/^ {4}Temperature and rain for the coming days in a city$/m)
    expect(result.stdout).toMatch(/^ {4}args: city: string, days: integer$/m)
  })

  it('--json prints the definitions found', async () => {
    const result = await run(['search', searching.url, 'archive coupon', '--limit', '3', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const found = JSON.parse(result.stdout) as { name: string; inputSchema: unknown }[]
    expect(found.length).toBeLessThanOrEqual(3)
    expect(found[0]).toMatchObject({ name: 'coupon_archive', inputSchema: { type: 'object' } })
  })

  it('escapes what the server names, and refuses usage errors with exit 2', async () => {
    const shown = await run(['search', hostile.url, 'anything'])
    expect(shown.code, shown.stderr).toBe(0)
    // eslint-disable-next-line no-control-regex -- the test looks for exactly these
    expect(shown.stdout).not.toMatch(/[\u001b\u202e]/)
    expect(shown.stdout).toContain('evil\\u{202E}txt.exe\\x1b[2J')
    expect(shown.stdout).toContain('Reads \\x1b[31mred\\x1b[0m files')
    const noQuery = await run(['search', searching.url])
    expect(noQuery.code).toBe(2)
    expect(noQuery.stderr).toMatch(/give the words to search for/)
    for (const limit of ['0', '-3', '2.5', 'ten']) {
      const bad = await run(['search', searching.url, 'x', '--limit', limit])
      expect(bad.code).toBe(2)
      expect(bad.stderr).toMatch(/--limit expects a whole number >= 1/)
    }
    const tooMany = await run(['search', searching.url, 'x', '--limit', '51'])
    expect(tooMany.code).toBe(2) // the server refuses it: a tool error, thrown by the client
    expect(tooMany.stderr).toMatch(/limit/)
  })

  it('says so when the server offers no tool search', async () => {
    const plain = await serveNode(defineServer({ name: 'plain', version: '1', tools: tools.slice(0, 3) }), {
      port: 0,
      host: '127.0.0.1',
    })
    try {
      const result = await run(['search', plain.url, 'invoice'])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/search_tools: .*offers no tool search/)
    } finally {
      await plain.close()
    }
  })
})

describe('toolwire call of a tool only search finds', () => {
  it('finds its definition through search_tools and calls it', async () => {
    const result = await run(['call', searching.url, 'ticket_share', 'id=T-1', '--yes'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('shared ticket T-1\n')
    const missing = await run(['call', searching.url, 'ticket_explode', '--yes'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/has no tool "ticket_explode"/)
  })
})
