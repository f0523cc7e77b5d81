/**
 * `toolwire skills`, `toolwire skills get [--out-dir]` and `toolwire card`, run as users run them (the built
 * CLI in a child process) against a toolwire server on a real socket, and against a raw node:http server that
 * serves a skill whose bytes do not match its digest: the command fails and saves nothing. The demo's skill
 * over stdio (`toolwire demo --stdio`) with toolwire's client.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createServer, type Server as HttpServer } from 'node:http'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fetchSkill, listSkills } from '../src/client/index.js'
import { connectStdio } from '../src/client/stdio-entry.js'
import { defineServer, defineSkill } from '../src/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { CLI } from './helpers/paths.js'

const SKILL_MD = '---\nname: greeting\ndescription: Greet a user by name\n---\n\nSee references/TONE.md.\n'
const TONE = 'Warm, short.\n'

function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

let running: RunningServer
let hostile: HttpServer
let hostileUrl: string

beforeAll(async () => {
  const server = defineServer({
    name: 'io.example/greeter',
    version: '1.2.3',
    description: 'Greets people',
    skills: [defineSkill({ skillMd: SKILL_MD, files: { 'references/TONE.md': TONE } })],
    serverCard: {},
  })
  running = await serveNode(server, { port: 0, host: '127.0.0.1' })

  const served = SKILL_MD.replace('Greet', 'Phish')
  hostile = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      if (req.url === '/mcp/server-card') {
        res.writeHead(200, { 'content-type': 'application/mcp-server-card+json' })
        return void res.end(JSON.stringify({ name: 'not a card' }))
      }
      const request = JSON.parse(body) as { id: number; method: string; params?: { uri?: string } }
      const reply = (result: Record<string, unknown>): void => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { resultType: 'complete', ...result } }),
        )
      }
      const cache = { ttlMs: 0, cacheScope: 'private' }
      if (request.method === 'server/discover')
        return reply({
          supportedVersions: ['2026-07-28'],
          capabilities: { resources: {}, extensions: { 'io.modelcontextprotocol/skills': {} } },
          ...cache,
        })
      const digest = `sha256:${createHash('sha256').update(SKILL_MD).digest('hex')}`
      const entry = {
        uri: 'skill://greeting/SKILL.md',
        frontmatter: { name: 'greeting', description: 'Greet a user by name' },
        resources: [{ uri: 'skill://greeting/SKILL.md', digest, size: Buffer.byteLength(SKILL_MD) }],
      }
      if (request.method === 'skills/list') return reply({ skills: [entry], ...cache })
      if (request.method === 'resources/read')
        return reply({
          contents: [{ uri: request.params?.uri, mimeType: 'text/markdown', text: served }],
          ...cache,
        })
      res.writeHead(404).end()
    })
  })
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve))
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/mcp`
})

afterAll(async () => {
  await running.close()
  hostile.closeAllConnections()
  await new Promise<void>((resolve) => hostile.close(() => resolve()))
})

describe('toolwire skills', () => {
  it('lists the skills', async () => {
    const run = await cli(['skills', running.url])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('greeting — skill://greeting/SKILL.md (2 file(s))')
    expect(run.stdout).toContain('Greet a user by name')
  })

  it('prints a verified SKILL.md, and saves every file under --out-dir/<name>', async () => {
    const printed = await cli(['skills', 'get', running.url, 'greeting'])
    expect(printed.code).toBe(0)
    expect(printed.stdout).toBe(SKILL_MD + '\n')

    const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-skills-'))
    const saved = await cli(['skills', 'get', running.url, 'greeting', '--out-dir', dir])
    expect(saved.stderr).toBe('')
    expect(saved.code).toBe(0)
    expect(readFileSync(join(dir, 'greeting', 'SKILL.md'), 'utf8')).toBe(SKILL_MD)
    expect(readFileSync(join(dir, 'greeting', 'references', 'TONE.md'), 'utf8')).toBe(TONE)
    // Never over an existing file.
    const again = await cli(['skills', 'get', running.url, 'greeting', '--out-dir', dir])
    expect(again.code).not.toBe(0)
    expect(again.stderr).toMatch(/EEXIST|exists/)
  })

  it('names the skills a server has when the name is unknown', async () => {
    const run = await cli(['skills', 'get', running.url, 'nope'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/no skill named "nope"; the server has: greeting/)
  })

  it('fails on a digest mismatch and saves nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-hostile-'))
    const run = await cli(['skills', 'get', hostileUrl, 'greeting', '--out-dir', dir])
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/digest|bytes/)
    expect(readdirSync(dir)).toEqual([])
    expect(existsSync(join(dir, 'greeting'))).toBe(false)
  })

  it('shows its own examples in --help', async () => {
    const run = await cli(['skills', 'get', '--help'])
    expect(run.stdout).toMatch(/--out-dir \.\/skills/)
  })
})

describe('the demo over stdio', () => {
  it('serves its skill: listed, fetched and verified through toolwire demo --stdio', async () => {
    const client = connectStdio({ command: process.execPath, args: [CLI, 'demo', '--stdio'] })
    try {
      const skills = await listSkills(client)
      expect(skills.map((skill) => skill.uri)).toEqual(['skill://notebook-workflow/SKILL.md'])
      const files = await fetchSkill(client, skills[0] as (typeof skills)[number])
      expect(files.map((file) => file.path)).toEqual(['SKILL.md', 'references/TAGS.md'])
      expect(new TextDecoder().decode(files[0]?.bytes)).toContain('# Notebook workflow')
      const directory = await client.request('resources/directory/read', { uri: 'skill://notebook-workflow' })
      expect(directory.resources).toContainEqual({
        uri: 'skill://notebook-workflow/references',
        name: 'references',
        mimeType: 'inode/directory',
      })
    } finally {
      await client.close()
    }
  })
})

describe('toolwire card', () => {
  it('prints the card of a server', async () => {
    const run = await cli(['card', running.url])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('io.example/greeter 1.2.3 (io.example/greeter)')
    expect(run.stdout).toContain(`streamable-http ${running.url} — protocol versions: 2026-07-28`)
    const json = await cli(['card', running.url, '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'io.example/greeter', version: '1.2.3' })
  })

  it('refuses a malformed card', async () => {
    const run = await cli(['card', hostileUrl])
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/Invalid server card/)
  })
})
