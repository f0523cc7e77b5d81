/**
 * The CLI against the official reference servers, as users run them: @modelcontextprotocol/server-filesystem
 * with a directory argument, and @modelcontextprotocol/server-everything.
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { UrlElicitationRequiredError } from '../src/client/index.js'
import { connectStdio } from '../src/client/stdio-entry.js'
import { EVERYTHING_SERVER as EVERYTHING, CLI, ROOT } from './helpers/paths.js'
import { KEY, noTerminal, runInTerminal } from './helpers/pty.js'
import { until } from './helpers/wait.js'

const everything = ['--', process.execPath, EVERYTHING, 'stdio']
const FILESYSTEM = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
)

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(args: readonly string[], options: { cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: options.cwd ?? ROOT, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

/** A folder with one file in it, for server-filesystem to serve. */
function folderWithNote(): { dir: string; note: string } {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-fs-'))
  const note = join(dir, 'note.txt')
  writeFileSync(note, 'hello from the served folder\n')
  return { dir, note }
}

/** The JSON-RPC messages the CLI wrote to the server, recorded by a `tee` in front of it. */
interface Sent {
  method?: string
  params?: Record<string, unknown>
  result?: Record<string, unknown>
}

function sentBy(log: string): Sent[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Sent)
}

describe.skipIf(process.platform === 'win32')('server-filesystem with a directory argument', () => {
  it('reads a file of that directory: no root is declared unless --root is given', async () => {
    const { dir, note } = folderWithNote()
    const log = join(mkdtempSync(join(tmpdir(), 'toolwire-tee-')), 'sent.jsonl')
    // Another working directory than the served one: the old default root (the working directory) would
    // replace the served folder.
    const elsewhere = mkdtempSync(join(tmpdir(), 'toolwire-cwd-'))
    const server = `tee "${log}" | "${process.execPath}" "${FILESYSTEM}" "${dir}"`
    const result = await run(['call', 'read_text_file', `path=${note}`, '--yes', '--', 'sh', '-c', server], {
      cwd: elsewhere,
    })
    expect(result.stderr).not.toMatch(/Access denied/)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('hello from the served folder')
    const initialize = sentBy(log).find((message) => message.method === 'initialize')
    expect(initialize?.params?.capabilities).toBeDefined()
    expect(initialize?.params?.capabilities).not.toHaveProperty('roots')
  }, 60_000)

  it('with --root, the roots are declared and answered with the given folders', async () => {
    const { dir, note } = folderWithNote()
    const other = folderWithNote()
    const log = join(mkdtempSync(join(tmpdir(), 'toolwire-tee-')), 'sent.jsonl')
    const server = `tee "${log}" | "${process.execPath}" "${FILESYSTEM}" "${dir}"`
    const result = await run([
      'call',
      'read_text_file',
      `path=${note}`,
      '--yes',
      '--root',
      other.dir,
      '--',
      'sh',
      '-c',
      server,
    ])
    expect(result.stderr).toContain('Calling read_text_file')
    const sent = sentBy(log)
    const initialize = sent.find((message) => message.method === 'initialize')
    expect(initialize?.params?.capabilities).toHaveProperty('roots')
    // The server asks for the roots as soon as it is initialized; the CLI answers with the --root folder.
    const answer = sent.find((message) => message.result !== undefined && 'roots' in message.result)
    expect(answer?.result).toEqual({ roots: [{ uri: pathToFileURL(other.dir).href }] })
  }, 60_000)
})

describe('a URL required before the request (-32042, server-everything)', () => {
  const refused = ['trigger-url-elicitation', 'url=https://example.com/x', 'errorPath=true', '--yes']

  it('the client throws UrlElicitationRequiredError with the URLs', async () => {
    const client = connectStdio(
      { command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' },
      { handlers: { elicitation: async () => ({ action: 'decline' }) } },
    )
    try {
      const error = await client
        .callTool('trigger-url-elicitation', { url: 'https://example.com/x', errorPath: true })
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        )
      expect(error).toBeInstanceOf(UrlElicitationRequiredError)
      const elicitations = (error as UrlElicitationRequiredError).elicitations
      expect(elicitations).toHaveLength(1)
      expect(elicitations[0]).toMatchObject({ url: 'https://modelcontextprotocol.io' })
      expect(elicitations[0]?.elicitationId).toEqual(expect.any(String))
    } finally {
      await client.close()
    }
  }, 60_000)

  it('the CLI prints the URL it must visit (no terminal)', async () => {
    const result = await run(['call', ...refused, ...everything])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('This request requires browser-based authorization')
    expect(result.stderr).toMatch(/visit\n {2}https:\/\/modelcontextprotocol\.io\nthen run the command again/)
  }, 60_000)

  it.skipIf(noTerminal !== undefined)(
    'in a terminal, shows the URL and its host and offers to open it',
    async () => {
      const term = runInTerminal([process.execPath, CLI, 'call', ...refused, ...everything], ROOT)
      await term.waitFor('Open it in your browser?', 30_000)
      expect(term.screen()).toContain('Host: modelcontextprotocol.io')
      term.type('n')
      expect(await term.exited).toBe(2)
      expect(term.screen()).toContain('then run the command again')
    },
    60_000,
  )
})

describe('tools a server hides, and legacy forms (server-everything)', () => {
  it('an unlisted tool name says which flag might reveal it, and --sampling-command does', async () => {
    const hidden = await run(['call', 'trigger-sampling-request', 'prompt=hi', '--yes', ...everything])
    expect(hidden.code).toBe(2)
    expect(hidden.stderr).toContain('has no tool "trigger-sampling-request"')
    expect(hidden.stderr).toMatch(/may hide tools .*--sampling-command "<command>" \(sampling\)/)
    const revealed = await run(['list', '--sampling-command', 'cat', ...everything])
    expect(revealed.code).toBe(0)
    expect(revealed.stdout).toContain('trigger-sampling-request')
  }, 60_000)

  it.skipIf(noTerminal !== undefined)(
    'a legacy titled enum (enumNames) shows its titles',
    async () => {
      const term = runInTerminal(
        [process.execPath, CLI, 'call', 'trigger-elicitation-request', '--yes', ...everything],
        ROOT,
      )
      await term.waitFor('String — Your full, legal name', 30_000)
      term.type(`Ada${KEY.enter}`)
      // Every other field keeps its default (or stays empty) until the legacy enum; each prompt is waited for.
      const before = [
        'Boolean',
        'String with default',
        'String with email',
        'String with uri',
        'String with date',
      ]
      const more = ['Integer', 'Number in range', 'Untitled Single', 'Untitled Multiple', 'Titled Single']
      for (const label of [...before, ...more, 'Titled Multiple']) {
        await term.waitFor(`◆  ${label}`)
        term.type(KEY.enter)
      }
      await term.waitFor('◆  Legacy Titled Single Select Enum')
      await term.waitFor('Cats')
      expect(term.screen()).toContain('Reptiles')
      term.type(KEY.enter)
      await term.waitFor('You are about to send')
      await term.waitFor('Send this answer?')
      term.type(KEY.enter)
      expect(await term.exited).toBe(0)
      expect(term.screen()).toContain('pet-1')
    },
    90_000,
  )
})

describe('small things users meet', () => {
  it.skipIf(noTerminal !== undefined)(
    'a 2025-era URL elicitation asks to continue, not to retry',
    async () => {
      const term = runInTerminal(
        [
          process.execPath,
          CLI,
          'call',
          'trigger-url-elicitation',
          'url=https://example.com/x',
          '--yes',
          ...everything,
        ],
        ROOT,
      )
      await term.waitFor('When you are done there, continue', 30_000)
      expect(term.screen()).toContain('Host: example.com')
      expect(term.screen()).toContain('I have completed it — continue')
      expect(term.screen()).not.toContain('retry the request')
      term.type(KEY.enter)
      expect(await term.exited).toBe(0)
      expect(term.screen()).toContain('User completed the URL elicitation flow')
    },
    60_000,
  )

  it('read with the URI after --: a clear error, and the server command is not run', async () => {
    const started = join(mkdtempSync(join(tmpdir(), 'toolwire-read-')), 'started')
    const result = await run(['read', '--', 'sh', '-c', 'echo started > "$1"', 'sh', started, 'notes://all'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'give the URI of the resource to read before --: toolwire read <uri> -- <command>',
    )
    expect(result.stderr).toContain(
      '"notes://all" comes after --, so it is an argument of the server command',
    )
    expect(existsSync(started)).toBe(false)
  }, 60_000)

  it('the demo (one process) elicits without a warning about a per-process secret', async () => {
    const demo = ['--', process.execPath, CLI, 'demo', '--stdio']
    const result = await run(['call', 'add_note', 'title=hi', '--yes', ...demo])
    expect(result.stderr).toContain('asks (for add_note)')
    expect(result.stderr).not.toContain('per-process secret')
  }, 60_000)

  it('the demo banner names every revision it serves', async () => {
    const demo = spawn(process.execPath, [CLI, 'demo', '--http', '127.0.0.1:0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      let out = ''
      demo.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      await until(() => out.includes('\n'), 30_000, 'the banner')
      expect(out).toMatch(
        /^toolwire demo serving MCP 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26 on http:/,
      )
    } finally {
      demo.kill('SIGTERM')
    }
  }, 60_000)
})

describe('a stdio server that fails is named by its command, never its arguments', () => {
  it('neither a missing command nor one that exits prints the tokens in its configured args', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'toolwire-config-'))
    const servers = {
      missing: { command: 'toolwire-no-such-server', args: ['--api-key', 'sk-missing-SECRET'] },
      exits: { command: process.execPath, args: ['-e', 'process.exit(3)', 'sk-exits-SECRET'] },
    }
    writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: servers }))
    const missing = await run(['list', 'missing'], { cwd })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('Cannot start toolwire-no-such-server')
    expect(missing.stderr).not.toContain('SECRET')
    const exits = await run(['list', 'exits'], { cwd })
    expect(exits.code).toBe(2)
    expect(exits.stderr).toContain(`The server process ${process.execPath} exited (code 3)`)
    expect(exits.stderr).not.toContain('SECRET')
  }, 60_000)
})
