/**
 * The Skills extension (io.modelcontextprotocol/skills) end to end over real HTTP: skills defined in code and
 * from folders, refused when malformed; skills/list with pagination and cache hints, skills/get,
 * resources/directory/read and resources/read of skill files; access by scope; toolwire's client verifying
 * digests (and refusing a hostile node:http server's wrong ones); the official SDK clients reading skill
 * files as ordinary resources.
 */
import { createHash } from 'node:crypto'
import { createServer, type Server as HttpServer } from 'node:http'
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  fetchSkill,
  getSkill,
  listSkills,
  readSkillFile,
  SkillVerificationError,
  connect,
  McpError,
  type SkillEntry,
} from '../src/client/index.js'
import {
  bearerAuth,
  createFetchHandler,
  defineServer,
  defineSkill,
  InvalidTokenError,
  SKILL_LIMITS,
  SkillDefinitionError,
} from '../src/index.js'
import { skillFromFolder } from '../src/features/skills/folder.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'

const sha256 = (text: string | Uint8Array): string =>
  `sha256:${createHash('sha256').update(text).digest('hex')}`
const skillMd = (name: string, description = `The ${name} skill`, extra = ''): string =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n\nRead references/GUIDE.md.\n`

const PDF_MD = skillMd(
  'pdf-processing',
  'Extract, fill, and assemble PDF documents',
  'license: Apache-2.0\nmetadata:\n  version: "2.1"\n',
)
const GUIDE = 'Use templates/invoice.md for invoices.\n'

function skillFolder(): string {
  const base = mkdtempSync(join(tmpdir(), 'toolwire-skills-'))
  const folder = join(base, 'pdf-processing')
  mkdirSync(join(folder, 'references'), { recursive: true })
  mkdirSync(join(folder, 'templates'), { recursive: true })
  writeFileSync(join(folder, 'SKILL.md'), PDF_MD)
  writeFileSync(join(folder, 'references', 'GUIDE.md'), GUIDE)
  writeFileSync(join(folder, 'templates', 'invoice.md'), 'Invoice #{number}\n')
  writeFileSync(join(folder, 'templates', 'logo.bin'), new Uint8Array([0, 255, 1, 254]))
  return folder
}

describe('skill definitions', () => {
  it('refuses a SKILL.md without front matter, malformed YAML, no description, or a bad name', () => {
    const bad = [
      '# just markdown\n',
      '---\nname: [unclosed\ndescription: x\n---\n',
      '---\nname: lonely\n---\nbody\n',
      '---\nname: Not_Valid\ndescription: x\n---\n',
      '---\nname: ok\ndescription: x\nmetadata:\n  io.modelcontextprotocol/x: 1\n---\n',
    ]
    for (const text of bad) expect(() => defineSkill({ skillMd: text })).toThrow(SkillDefinitionError)
  })

  it('refuses file paths that leave the skill, and files past the default size bound', () => {
    for (const path of ['../escape.md', '/etc/passwd', 'a/../../b', 'a//b', 'SKILL.md'])
      expect(() => defineSkill({ skillMd: skillMd('s'), files: { [path]: 'x' } })).toThrow(
        SkillDefinitionError,
      )
    const tooBig = new Uint8Array(SKILL_LIMITS.maxFileBytes + 1)
    expect(() => defineSkill({ skillMd: skillMd('s'), files: { 'big.bin': tooBig } })).toThrow(/maxFileBytes/)
    const many = Object.fromEntries(
      Array.from({ length: SKILL_LIMITS.maxFiles }, (_, i) => [`f${i}.md`, 'x']),
    )
    expect(() => defineSkill({ skillMd: skillMd('s'), files: many })).toThrow(/maxFiles/)
  })

  it('reads a folder, and refuses symlinks leading out, a missing SKILL.md, a name not the folder, an oversized file', () => {
    const folder = skillFolder()
    const skill = skillFromFolder(folder)
    expect(skill.uri).toBe('skill://pdf-processing/SKILL.md')
    expect(skill.files.map((file) => file.path)).toEqual([
      'SKILL.md',
      'references/GUIDE.md',
      'templates/invoice.md',
      'templates/logo.bin',
    ])

    const outside = join(mkdtempSync(join(tmpdir(), 'toolwire-outside-')), 'secret.txt')
    writeFileSync(outside, 'not part of the skill')
    const escaping = skillFolder()
    symlinkSync(outside, join(escaping, 'references', 'leak.txt'))
    expect(() => skillFromFolder(escaping)).toThrow(/symbolic link leading outside the folder/)

    const inside = skillFolder()
    symlinkSync(join(inside, 'references', 'GUIDE.md'), join(inside, 'guide-link.md'))
    expect(skillFromFolder(inside).files.map((f) => f.path)).toContain('guide-link.md')

    const noSkill = mkdtempSync(join(tmpdir(), 'toolwire-empty-'))
    writeFileSync(join(noSkill, 'README.md'), 'no skill here')
    expect(() => skillFromFolder(noSkill)).toThrow(/no SKILL.md/)

    const renamed = join(mkdtempSync(join(tmpdir(), 'toolwire-renamed-')), 'other-name')
    mkdirSync(renamed)
    writeFileSync(join(renamed, 'SKILL.md'), PDF_MD)
    expect(() => skillFromFolder(renamed)).toThrow(/not the folder's name/)

    const malformed = join(mkdtempSync(join(tmpdir(), 'toolwire-malformed-')), 'broken')
    mkdirSync(malformed)
    writeFileSync(join(malformed, 'SKILL.md'), '---\nname: broken\ndescription: "unterminated\n---\n')
    expect(() => skillFromFolder(malformed)).toThrow(SkillDefinitionError)

    const big = skillFolder()
    writeFileSync(join(big, 'huge.bin'), new Uint8Array(SKILL_LIMITS.maxFileBytes + 1))
    expect(() => skillFromFolder(big)).toThrow(/maxFileBytes/)
  })
})

describe('skills in one server', () => {
  it('refuses two skills at one URI, and one file URI with two contents', () => {
    const one = defineSkill({ skillMd: skillMd('dup') })
    const two = defineSkill({ skillMd: skillMd('dup', 'Another description') })
    expect(() => defineServer({ name: 's', version: '1.0.0', skills: [one, two] })).toThrow(/Duplicate skill/)
    const outer = defineSkill({ skillMd: skillMd('outer'), files: { 'inner/SKILL.md': skillMd('inner') } })
    const clash = defineSkill({ prefix: 'outer', skillMd: skillMd('inner', 'Not the same bytes') })
    expect(() => defineServer({ name: 's', version: '1.0.0', skills: [outer, clash] })).toThrow(
      /different contents/,
    )
    // The same bytes nested and on their own are one file of two skills (extensions/skills §Nested Skills).
    const nested = defineSkill({ prefix: 'outer', skillMd: skillMd('inner') })
    expect(() => defineServer({ name: 's', version: '1.0.0', skills: [outer, nested] })).not.toThrow()
  })

  it('lets visible() decide per request; a hidden skill is unknown everywhere', async () => {
    const secret = defineSkill({
      skillMd: skillMd('secret-skill'),
      visible: (ctx) => ctx.meta.clientInfo?.name === 'trusted-client',
    })
    const handler = createFetchHandler(
      defineServer({
        name: 's',
        version: '1.0.0',
        skills: [secret, defineSkill({ skillMd: skillMd('open') })],
      }),
    )
    const trusted = connect(
      { url: 'http://localhost/mcp', fetch: handler },
      { clientInfo: { name: 'trusted-client', version: '1' } },
    )
    const other = connect({ url: 'http://localhost/mcp', fetch: handler })
    try {
      expect((await listSkills(trusted)).map((s) => s.frontmatter.name)).toEqual(['secret-skill', 'open'])
      expect((await listSkills(other)).map((s) => s.frontmatter.name)).toEqual(['open'])
      const listed = await other.request('skills/list', {})
      expect(listed.cacheScope).toBe('private')
      await expect(getSkill(other, 'skill://secret-skill/SKILL.md')).rejects.toMatchObject({ code: -32602 })
      await expect(other.readResource('skill://secret-skill/SKILL.md')).rejects.toMatchObject({
        code: -32602,
      })
      expect((await other.listResources()).map((r) => r.uri)).toEqual(['skill://open/SKILL.md'])
    } finally {
      await trusted.close()
      await other.close()
    }
  })
})

describe('skills over HTTP', () => {
  let running: RunningServer
  const ADMIN = 'admin-token'
  const USER = 'user-token'

  beforeAll(async () => {
    const http = createServer()
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    const port = (http.address() as AddressInfo).port
    await new Promise<void>((resolve) => http.close(() => resolve()))
    const url = `http://127.0.0.1:${port}/mcp`
    const server = defineServer({
      name: 'skills-test',
      version: '1.0.0',
      pageSize: 1,
      skills: [
        skillFromFolder(skillFolder()),
        defineSkill({ skillMd: skillMd('git-workflow'), files: { 'references/GUIDE.md': GUIDE } }),
        defineSkill({ prefix: 'acme/ops', skillMd: skillMd('purge-prod'), scopes: ['admin'] }),
      ],
      security: {
        auth: bearerAuth({
          resource: url,
          authorizationServers: ['https://issuer.invalid'],
          verifier: (token) => {
            if (token === ADMIN) return { subject: 'root', scopes: ['admin'], token }
            if (token === USER) return { subject: 'user', scopes: [], token }
            throw new InvalidTokenError('unknown token')
          },
        }),
      },
    })
    running = await serveNode(server, { port, host: '127.0.0.1' })
  })

  afterAll(async () => {
    await running.close()
  })

  const as = (token: string) => connect({ url: running.url, headers: { authorization: `Bearer ${token}` } })

  it('declares the extension with directoryRead and the resources capability', async () => {
    const client = as(USER)
    try {
      const { capabilities } = await client.discover()
      expect(capabilities.extensions?.['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true })
      expect(capabilities.resources).toBeDefined()
      // Public skills' SKILL.md are ordinary resources too, named from their front matter; the scoped one is not.
      const resources = await client.listResources()
      expect(resources).toContainEqual(
        expect.objectContaining({
          uri: 'skill://pdf-processing/SKILL.md',
          name: 'pdf-processing',
          description: 'Extract, fill, and assemble PDF documents',
          mimeType: 'text/markdown',
        }),
      )
      expect(resources.map((r) => r.uri)).not.toContain('skill://acme/ops/purge-prod/SKILL.md')
    } finally {
      await client.close()
    }
  })

  it('pages skills/list with cache hints, hides a scoped skill from a caller without the scope', async () => {
    const client = as(USER)
    try {
      const first = await client.request('skills/list', {})
      expect(first).toMatchObject({ resultType: 'complete', cacheScope: 'private' })
      expect(typeof first.ttlMs).toBe('number')
      expect(first.skills).toHaveLength(1)
      expect(typeof first.nextCursor).toBe('string')
      const skills = await listSkills(client)
      expect(skills.map((s) => s.uri)).toEqual([
        'skill://pdf-processing/SKILL.md',
        'skill://git-workflow/SKILL.md',
      ])
      const pdf = skills[0] as SkillEntry
      expect(pdf.frontmatter).toEqual({
        name: 'pdf-processing',
        description: 'Extract, fill, and assemble PDF documents',
        license: 'Apache-2.0',
        metadata: { version: '2.1' },
      })
      expect(pdf.resources).toContainEqual({
        uri: 'skill://pdf-processing/SKILL.md',
        digest: sha256(PDF_MD),
        size: Buffer.byteLength(PDF_MD),
      })
      // Hidden: not listed, and unknown to skills/get, resources/read and resources/directory/read.
      const hidden = 'skill://acme/ops/purge-prod/SKILL.md'
      await expect(getSkill(client, hidden)).rejects.toMatchObject({ code: -32602 })
      await expect(client.readResource(hidden)).rejects.toMatchObject({ code: -32602 })
      await expect(
        client.request('resources/directory/read', { uri: 'skill://acme/ops/purge-prod' }),
      ).rejects.toBeInstanceOf(McpError)
    } finally {
      await client.close()
    }
    const admin = as(ADMIN)
    try {
      const skills = await listSkills(admin)
      expect(skills.map((s) => s.frontmatter.name)).toContain('purge-prod')
      const entry = await getSkill(admin, 'skill://acme/ops/purge-prod/SKILL.md')
      expect((await fetchSkill(admin, entry)).map((f) => f.path)).toEqual(['SKILL.md'])
    } finally {
      await admin.close()
    }
  })

  it('reads every file verified, text and binary, and lists directories', async () => {
    const client = as(USER)
    try {
      const entry = await getSkill(client, 'skill://pdf-processing/SKILL.md')
      const files = await fetchSkill(client, entry)
      expect(files.map((f) => f.path)).toEqual([
        'SKILL.md',
        'references/GUIDE.md',
        'templates/invoice.md',
        'templates/logo.bin',
      ])
      expect([...(files[3]?.bytes ?? [])]).toEqual([0, 255, 1, 254])
      const root = await client.request('resources/directory/read', { uri: 'skill://pdf-processing' })
      const all: unknown[] = [...(root.resources as unknown[])]
      let cursor = root.nextCursor
      while (typeof cursor === 'string') {
        const next = await client.request('resources/directory/read', {
          uri: 'skill://pdf-processing',
          cursor,
        })
        all.push(...(next.resources as unknown[]))
        cursor = next.nextCursor
      }
      expect(all).toEqual([
        {
          uri: 'skill://pdf-processing/SKILL.md',
          name: 'pdf-processing',
          description: 'Extract, fill, and assemble PDF documents',
          mimeType: 'text/markdown',
        },
        { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
        { uri: 'skill://pdf-processing/templates', name: 'templates', mimeType: 'inode/directory' },
      ])
      await expect(
        client.request('resources/directory/read', { uri: 'skill://pdf-processing/SKILL.md' }),
      ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/not a directory/) })
      await expect(readSkillFile(client, entry, 'skill://pdf-processing/unlisted.md')).rejects.toBeInstanceOf(
        SkillVerificationError,
      )
    } finally {
      await client.close()
    }
  })

  it('serves skill files to the official SDK v1 and v2 clients as ordinary resources', async () => {
    const headers = { authorization: `Bearer ${USER}` }
    const v1 = new SdkClient({ name: 'sdk-v1-test', version: '1.0.0' })
    await v1.connect(new StreamableHTTPClientTransport(new URL(running.url), { requestInit: { headers } }))
    try {
      const read = await v1.readResource({ uri: 'skill://pdf-processing/SKILL.md' })
      expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: PDF_MD })
      const listed = await v1.request(
        { method: 'skills/list', params: {} },
        z.looseObject({ skills: z.array(z.unknown()) }),
      )
      expect(listed.skills).toHaveLength(1)
    } finally {
      await v1.close()
    }
    const v2 = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    const transport = new HttpTransportV2(new URL(running.url), { requestInit: { headers } })
    await v2.connect(transport)
    try {
      const read = await v2.readResource({ uri: 'skill://git-workflow/references/GUIDE.md' })
      expect(read.contents[0]).toMatchObject({ text: GUIDE })
    } finally {
      await v2.close()
    }
  })
})

describe('dotfiles in a skill folder', () => {
  /** A folder named `name` with SKILL.md, a guide, and the dotfiles a working folder tends to hold. */
  function dottedFolder(name: string): string {
    const folder = join(mkdtempSync(join(tmpdir(), 'toolwire-dotfiles-')), name)
    mkdirSync(join(folder, '.git'), { recursive: true })
    mkdirSync(join(folder, 'sub'), { recursive: true })
    mkdirSync(join(folder, '.well-known'), { recursive: true })
    writeFileSync(join(folder, 'SKILL.md'), skillMd(name))
    writeFileSync(join(folder, 'GUIDE.md'), GUIDE)
    writeFileSync(join(folder, '.env'), 'API_TOKEN=secret-env\n')
    writeFileSync(
      join(folder, '.git', 'config'),
      '[remote "origin"]\n\turl = https://secret-git@example.com\n',
    )
    writeFileSync(join(folder, 'sub', '.secret'), 'secret-sub\n')
    writeFileSync(join(folder, 'sub', 'notes.md'), 'notes\n')
    writeFileSync(join(folder, '.well-known', 'skill.json'), '{"listed":true}\n')
    return folder
  }

  /** The URIs in a listed skill's manifest (a skill from a folder has one; `dynamic` would fail the test). */
  const urisOf = (entry: SkillEntry | undefined): string[] =>
    Array.isArray(entry?.resources) ? entry.resources.map((r) => r.uri) : []

  it('are neither listed nor readable by a client unless includeDotfiles names them', async () => {
    const hidden = skillFromFolder(dottedFolder('dotty'))
    const listed = skillFromFolder(dottedFolder('dotty-listed'), {
      includeDotfiles: ['.well-known', 'sub/.secret'],
    })
    const running = await serveNode(
      defineServer({ name: 'dotfiles', version: '1.0.0', skills: [hidden, listed] }),
      { host: '127.0.0.1', port: 0 },
    )
    const client = connect({ url: running.url })
    try {
      const [dotty, dottyListed] = await listSkills(client)
      expect(urisOf(dotty)).toEqual([
        'skill://dotty/SKILL.md',
        'skill://dotty/GUIDE.md',
        'skill://dotty/sub/notes.md',
      ])
      const files = await fetchSkill(client, dotty as SkillEntry)
      expect(files.map((f) => f.path)).toEqual(['SKILL.md', 'GUIDE.md', 'sub/notes.md'])
      for (const path of ['.env', '.git/config', 'sub/.secret', '.well-known/skill.json'])
        await expect(client.readResource(`skill://dotty/${path}`)).rejects.toMatchObject({ code: -32602 })
      const root = await client.request('resources/directory/read', { uri: 'skill://dotty' })
      expect(JSON.stringify(root)).not.toMatch(/\.git|\.env|\.well-known/)
      await expect(
        client.request('resources/directory/read', { uri: 'skill://dotty/.git' }),
      ).rejects.toBeInstanceOf(McpError)

      expect(urisOf(dottyListed)).toEqual([
        'skill://dotty-listed/SKILL.md',
        'skill://dotty-listed/.well-known/skill.json',
        'skill://dotty-listed/GUIDE.md',
        'skill://dotty-listed/sub/.secret',
        'skill://dotty-listed/sub/notes.md',
      ])
      const read = await client.readResource('skill://dotty-listed/sub/.secret')
      expect(read.contents[0]).toMatchObject({ text: 'secret-sub\n' })
      const known = await client.readResource('skill://dotty-listed/.well-known/skill.json')
      expect(known.contents[0]).toMatchObject({ text: '{"listed":true}\n' })
      for (const path of ['.env', '.git/config'])
        await expect(client.readResource(`skill://dotty-listed/${path}`)).rejects.toMatchObject({
          code: -32602,
        })
    } finally {
      await client.close()
      await running.close()
    }
    // A listed path the folder does not hold (here: under a dot-folder not listed) is a mistake, said at once.
    expect(() => skillFromFolder(dottedFolder('dotty'), { includeDotfiles: ['.git/config'] })).toThrow(
      /includeDotfiles lists "\.git\/config", not in the folder/,
    )
  })
})

describe('a hostile server', () => {
  const TEXT = '---\nname: pdf-processing\ndescription: Extract PDFs\n---\nBody.\n'
  let http: HttpServer
  let url: string
  let served = TEXT
  let entryText = TEXT
  /** When set, skills/list answers these entries instead. */
  let listing: unknown[] | undefined

  beforeAll(async () => {
    http = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        const request = JSON.parse(body) as { id: number; method: string; params?: { uri?: string } }
        const reply = (result: Record<string, unknown>): void => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(
            JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { resultType: 'complete', ...result } }),
          )
        }
        const entry = {
          uri: 'skill://pdf-processing/SKILL.md',
          frontmatter: { name: 'pdf-processing', description: 'Extract PDFs' },
          resources: [
            {
              uri: 'skill://pdf-processing/SKILL.md',
              digest: sha256(entryText),
              size: Buffer.byteLength(entryText),
            },
          ],
        }
        if (request.method === 'server/discover')
          return reply({
            supportedVersions: ['2026-07-28'],
            capabilities: { resources: {}, extensions: { 'io.modelcontextprotocol/skills': {} } },
            ttlMs: 0,
            cacheScope: 'private',
          })
        if (request.method === 'skills/list')
          return reply({ skills: listing ?? [entry], ttlMs: 0, cacheScope: 'private' })
        if (request.method === 'resources/read')
          return reply({
            contents: [{ uri: request.params?.uri, mimeType: 'text/markdown', text: served }],
            ttlMs: 0,
            cacheScope: 'private',
          })
        res.writeHead(404).end()
      })
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
  })

  afterAll(async () => {
    http.closeAllConnections()
    await new Promise<void>((resolve) => http.close(() => resolve()))
  })

  it('refuses content whose digest, size or front matter does not match the entry', async () => {
    const client = connect({ url })
    try {
      const [entry] = await listSkills(client)
      served = TEXT.replace('Body.', 'Evil.')
      await expect(readSkillFile(client, entry as SkillEntry, (entry as SkillEntry).uri)).rejects.toThrow(
        /digest/,
      )
      served = `${TEXT}more`
      await expect(readSkillFile(client, entry as SkillEntry, (entry as SkillEntry).uri)).rejects.toThrow(
        /entry's size|but the entry says/,
      )
      // Digest and size match, but the front matter is not the entry's.
      entryText = TEXT.replace('Extract PDFs', 'Exfiltrate credentials')
      served = entryText
      const [tampered] = await listSkills(client)
      await expect(
        readSkillFile(client, tampered as SkillEntry, (tampered as SkillEntry).uri),
      ).rejects.toThrow(/front matter differs/)
      entryText = served = TEXT
      const [fine] = await listSkills(client)
      const file = await readSkillFile(client, fine as SkillEntry, (fine as SkillEntry).uri)
      expect(new TextDecoder().decode(file.bytes)).toBe(TEXT)
    } finally {
      await client.close()
    }
  })

  it('bounds what a server can make the client hold: entries, files, bytes, malformed entries', async () => {
    const client = connect({ url })
    const fileEntry = (index: number, size = 1) => ({
      uri: `skill://big/file-${index}.md`,
      digest: sha256(String(index)),
      size,
    })
    const big = (resources: unknown[]) => ({
      uri: 'skill://big/SKILL.md',
      frontmatter: { name: 'big', description: 'Too big' },
      resources: [{ uri: 'skill://big/SKILL.md', digest: sha256('x'), size: 1 }, ...resources],
    })
    try {
      listing = Array.from({ length: 10_001 }, (_, i) => ({
        ...big([]),
        uri: `skill://s${i}/big/SKILL.md`,
        resources: [{ uri: `skill://s${i}/big/SKILL.md`, digest: sha256('x'), size: 1 }],
      }))
      await expect(listSkills(client)).rejects.toThrow(/maxSkills 10000/)
      listing = [big(Array.from({ length: 512 }, (_, i) => fileEntry(i)))] // 513 files with SKILL.md
      await expect(listSkills(client)).rejects.toThrow(/over maxFiles 512/)
      listing = [big([fileEntry(1, 16 * 1024 * 1024)])]
      await expect(listSkills(client)).rejects.toThrow(/over maxTotalBytes/)
      listing = [big([{ uri: 'skill://big/a.md', digest: 'md5:abc', size: 1 }])]
      await expect(listSkills(client)).rejects.toThrow(/malformed digest/)
      listing = [big([{ uri: 'skill://other/a.md', digest: sha256('a'), size: 1 }])]
      await expect(listSkills(client)).rejects.toThrow(/outside the skill/)
      listing = [{ ...big([]), frontmatter: { name: 'not-big', description: 'x' } }]
      await expect(listSkills(client)).rejects.toThrow(/not the last segment/)
      listing = [{ ...big([]), resources: 'sometimes' }]
      await expect(listSkills(client)).rejects.toThrow(SkillVerificationError)
    } finally {
      listing = undefined
      await client.close()
    }
  })
})
