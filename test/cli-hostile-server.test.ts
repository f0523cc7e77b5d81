/**
 * The CLI against a hostile server: every string it prints that the server chose (identity, instructions,
 * tool names, titles, descriptions, results, progress, errors) reaches the terminal with its escapes, C1
 * controls, BEL and bidi overrides made visible; `--json` escapes them; media never lands outside `--out-dir`.
 *
 * The hostile peer is a real toolwire server behind a rewriting HTTP proxy on a real socket: the server
 * speaks the protocol correctly, the proxy swaps placeholder strings for hostile ones on the way out (and
 * the hostile tool name back on the way in), which toolwire's own output guard would never let through.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool } from '../src/index.js'
import { forTerminal, jsonForTerminal } from '../src/cli/terminal-text.js'
import { hostileProxy, type HostileProxy } from './helpers/hostile-proxy.js'
import { CLI, ROOT } from './helpers/paths.js'

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]).toString('base64')
const TOOL = '../../escaped'
/** Placeholder → what the hostile server really sends. */
const HOSTILE: Record<string, string> = {
  PLACEHOLDER_SERVER: 'evil\u001b]0;pwned\u0007',
  PLACEHOLDER_INSTRUCTIONS: 'read me\u001b[2J\u001b[H',
  PLACEHOLDER_TITLE: 'safe\u202etxt.exe',
  PLACEHOLDER_DESCRIPTION: 'click \u001b]8;;https://evil.example\u001b\\here\u001b]8;;\u001b\\ \u009b31m',
  PLACEHOLDER_RESULT: 'done\rrm -rf ~\u0007\u2066hidden\u2069',
  PLACEHOLDER_PROGRESS: 'step\u001b[1A\u001b[2K',
}
/** Characters that must never reach the terminal raw. */
// eslint-disable-next-line no-control-regex -- the test looks for exactly these
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/

const tool = defineTool({
  name: 'draw',
  title: 'PLACEHOLDER_TITLE',
  description: 'PLACEHOLDER_DESCRIPTION',
  handler: (_args, ctx) => {
    ctx.progress(1, 2, 'PLACEHOLDER_PROGRESS')
    return {
      content: [
        { type: 'text', text: 'PLACEHOLDER_RESULT' },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    }
  },
})
const inner = createFetchHandler(
  defineServer({
    name: 'PLACEHOLDER_SERVER',
    version: '1.0.0',
    instructions: 'PLACEHOLDER_INSTRUCTIONS',
    tools: [tool],
  }),
)

const hostile = (text: string): string =>
  Object.entries(HOSTILE).reduce(
    (out, [placeholder, value]) => out.replaceAll(placeholder, JSON.stringify(value).slice(1, -1)),
    text.replaceAll('"draw"', JSON.stringify(TOOL)),
  )

let proxy: HttpServer
let url: string
let work: string

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'toolwire-hostile-'))
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8').replaceAll(JSON.stringify(TOOL), '"draw"')
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value === TOOL ? 'draw' : value)
      }
      headers.delete('content-length')
      void inner(
        new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method ?? 'POST', headers, body }),
      ).then(async (response) => {
        const text = hostile(await response.text())
        res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? '' })
        res.end(text)
      })
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`
})

afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()))
  rmSync(work, { recursive: true, force: true })
})

function run(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, stdout, stderr }))
  })
}

describe('the CLI facing a hostile server', () => {
  it('discover shows the identity and instructions with every escape made visible', async () => {
    const { status, stdout, stderr } = await run('discover', url)
    expect(status).toBe(0)
    expect(stdout + stderr).not.toMatch(RAW)
    expect(stdout).toContain('evil\\x1b]0;pwned\\x07')
    expect(stdout).toContain('read me\\x1b[2J\\x1b[H')
  })

  it('list shows titles and descriptions without raw escapes or bidi overrides', async () => {
    const { status, stdout, stderr } = await run('list', url)
    expect(status).toBe(0)
    expect(stdout + stderr).not.toMatch(RAW)
    expect(stdout).toContain('safe\\u{202E}txt.exe')
    expect(stdout).toContain('\\x9b31m')
  })

  it('--json escapes every control and bidi character and still round-trips', async () => {
    const { status, stdout } = await run('list', url, '--json')
    expect(status).toBe(0)
    expect(stdout).not.toMatch(RAW)
    expect(stdout).toContain('\\u202e')
    const [listed] = JSON.parse(stdout) as { title: string; description: string }[]
    expect(listed?.title).toBe(HOSTILE.PLACEHOLDER_TITLE)
    expect(listed?.description).toBe(HOSTILE.PLACEHOLDER_DESCRIPTION)
  })

  it('call prints results and progress safely and saves media only inside a created --out-dir', async () => {
    const outDir = join(work, 'not', 'yet', 'there')
    const { status, stdout, stderr } = await run('call', url, TOOL, '--yes', '--out-dir', outDir)
    expect(stderr).not.toMatch(/ENOENT/)
    expect(status).toBe(0)
    expect(stdout + stderr).not.toMatch(RAW)
    expect(stdout).toContain('done\\x0drm -rf ~\\x07\\u{2066}hidden\\u{2069}')
    expect(stderr).toContain('step\\x1b[1A\\x1b[2K')
    expect(readdirSync(outDir)).toEqual(['escaped-2.png'])
    expect(existsSync(join(work, 'escaped-2.png'))).toBe(false)
    // A second call never overwrites the first file.
    expect((await run('call', url, TOOL, '--yes', '--out-dir', outDir)).status).toBe(0)
    expect(readdirSync(outDir).sort()).toEqual(['escaped-2-2.png', 'escaped-2.png'])
  })
})

describe('list facing tool names that break the naming rule', () => {
  /** The name each tool is defined with → the name the hostile server lists it under. */
  const NAMES: Record<string, string> = {
    bidi: 'evil\u202etxt.exe',
    lookalike: 'ｒｅａｄ_file',
    control: 'bell\u0007\u001b[2J',
  }
  let names: HostileProxy
  beforeAll(async () => {
    const tools = Object.keys(NAMES).map((name) => defineTool({ name, handler: () => name }))
    const server = defineServer({ name: 'names', version: '1.0.0', tools, security: { rateLimit: false } })
    names = await hostileProxy(createFetchHandler(server), {
      outbound: (message, method) => {
        const result = message.result as { tools?: { name: string }[] } | undefined
        if (method === 'tools/list')
          for (const tool of result?.tools ?? []) tool.name = NAMES[tool.name] ?? tool.name
        return message
      },
    })
  })
  afterAll(() => names.close())

  it('prints each name with its hidden characters escaped, and warns that it breaks the rule', async () => {
    const { status, stdout, stderr } = await run('list', names.url)
    expect(status).toBe(0)
    expect(stdout + stderr).not.toMatch(RAW)
    expect(stdout).toContain('evil\\u{202E}txt.exe')
    expect(stdout).toContain('ｒｅａｄ_file')
    expect(stdout).toContain('bell\\x07\\x1b[2J')
    expect(stderr.match(/breaks the tool-name rule/g)).toHaveLength(Object.keys(NAMES).length)
    expect(stderr).toContain('U+FF52 (ｒ)')
  })

  it('--json escapes them and still round-trips', async () => {
    const { status, stdout } = await run('list', names.url, '--json')
    expect(status).toBe(0)
    expect(stdout).not.toMatch(RAW)
    const listed = (JSON.parse(stdout) as { name: string }[]).map((tool) => tool.name)
    expect(listed.sort()).toEqual(Object.values(NAMES).sort())
  })
})

describe('forTerminal and jsonForTerminal', () => {
  it('keep ordinary text, joiners, newlines and tabs (multiline) untouched', () => {
    const family = 'family 👨\u200d👩\u200d👧 — naïve 日本語'
    expect(forTerminal(family)).toBe(family)
    expect(forTerminal('a\tb\nc', { multiline: true })).toBe('a\tb\nc')
    expect(forTerminal('a\tb\nc')).toBe('a\\x09b\\x0ac')
  })

  it('make tag characters, separators and lone C1 controls visible', () => {
    expect(forTerminal('x\u{e0041}\u2028\u0085')).toBe('x\\u{E0041}\\u{2028}\\x85')
    const json = jsonForTerminal({ k: 'x\u{e0041}\u2028\u0085\u007f' })
    expect(json).not.toMatch(RAW)
    expect(JSON.parse(json)).toEqual({ k: 'x\u{e0041}\u2028\u0085\u007f' })
  })
})
