/**
 * The CLI as a user runs it (built dist/cli/main.js, real child processes, stdio servers): resources,
 * prompts, schema details in `list`, exit status 2 for usage errors, `--env`, servers by name from
 * configuration files, roots and sampling, completion scripts.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, testServer } from './helpers/paths.js'

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

const demo = ['--', process.execPath, CLI, 'demo', '--stdio']
const probe = ['--', process.execPath, CLI, 'serve', testServer('cli-probe-server.mjs'), '--stdio']

describe('usage errors exit 2', () => {
  it.each([
    [['lst'], /unknown command 'lst'/],
    [['serve'], /missing required argument/],
    [['list', '--no-such-flag'], /unknown option/],
    [['list'], /give a server URL, a configured server name/],
    [['completion', 'tcsh'], /give a shell: bash, zsh, fish/],
  ])('toolwire %j', async (args, message) => {
    const result = await run(args)
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(message)
  })

  it('help shows examples and exits 0', async () => {
    const result = await run(['--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/Examples:[\s\S]*toolwire read /)
  })
})

describe('resources and prompts', () => {
  it('lists resources and templates, and reads one', async () => {
    const listed = await run(['resources', ...demo])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^notes:\/\/all — All notes \(application\/json\)$/m)
    expect(listed.stdout).toMatch(/^notes:\/\/note\/\{id\} — One note \[template\]$/m)
    const read = await run(['read', 'notes://all', ...demo])
    expect(read.code).toBe(0)
    expect(read.stdout).toBe('[resource notes://all]\n[]\n')
  })

  it('saves binary resource contents to a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-'))
    const read = await run(['read', 'probe://pixel', '--out-dir', dir, ...probe])
    expect(read.code).toBe(0)
    const saved = /saved to (\S+)\]/.exec(read.stdout)?.[1]
    expect(saved).toBeDefined()
    expect(
      readFileSync(saved as string)
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG')
  })

  it('an unknown resource is a protocol error (exit 2)', async () => {
    const read = await run(['read', 'notes://note/404', ...demo])
    expect(read.code).toBe(2)
    expect(read.stderr).toMatch(/error -32602/)
  })

  it('lists prompts and gets one with arguments', async () => {
    const listed = await run(['prompts', ...demo])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^summarize_notes — Summarize notes$/m)
    expect(listed.stdout).toMatch(/args: tag\?/)
    const got = await run(['prompt', 'summarize_notes', 'tag=work', ...demo])
    expect(got.code).toBe(0)
    expect(got.stdout).toMatch(/^--- user$/m)
    const unknown = await run(['prompt', 'nope', ...demo])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/has no prompt "nope"; it has: summarize_notes/)
  })
})

describe('list', () => {
  it('shows enum values, defaults and the output schema', async () => {
    const listed = await run(['list', ...demo])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(
      /args: op: "add"\|"subtract"\|"multiply"\|"divide"\|"power"\|"modulo", a: number/,
    )
    expect(listed.stdout).toMatch(/args: text: string, top\?: integer = 5/)
    expect(listed.stdout).toMatch(/returns: result: number/)
  })
})

describe('stdio servers: environment, roots, sampling', () => {
  it('passes --env to the server process', async () => {
    const result = await run([
      'call',
      'env',
      'name=PROBE_VALUE',
      '--yes',
      '--env',
      'PROBE_VALUE=a=b',
      ...probe,
    ])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('PROBE_VALUE=a=b\n')
    const bad = await run(['list', '--env', 'NOEQUALS', ...probe])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--env expects KEY=VALUE/)
  })

  it('declares roots only with --root, and answers with those folders', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'toolwire-roots-'))
    const byDefault = await run(['call', 'roots', '--yes', ...probe], { cwd })
    expect(byDefault.code).toBe(2)
    expect(byDefault.stderr).toMatch(/requires the client capabilities: roots .*pass --root <dir>/)
    const chosen = await run(['call', 'roots', '--yes', '--root', '/srv/a', '--root', '/srv/b', ...probe])
    expect(chosen.stdout).toBe('file:///srv/a\nfile:///srv/b\n')
  })

  it('declines sampling with a clear message, or runs the configured command', async () => {
    const declined = await run(['call', 'haiku', '--yes', ...probe])
    expect(declined.code).toBe(2)
    expect(declined.stderr).toMatch(
      /wants to sample a model, which the CLI declines; pass --sampling-command/,
    )
    const answer = JSON.stringify({
      role: 'assistant',
      model: 'fixed',
      content: { type: 'text', text: 'old pond' },
    })
    const script = join(mkdtempSync(join(tmpdir(), 'toolwire-sample-')), 'model.mjs')
    writeFileSync(
      script,
      `process.stdin.resume(); process.stdin.on('end', () => console.log(${JSON.stringify(answer)}))`,
    )
    const sampled = await run([
      'call',
      'haiku',
      '--yes',
      '--sampling-command',
      `"${process.execPath}" "${script}"`,
      ...probe,
    ])
    expect(sampled.code).toBe(0)
    expect(sampled.stdout).toBe('fixed: old pond\n')
  })
})

describe('servers by name from configuration files', () => {
  const entry = {
    command: process.execPath,
    args: [CLI, 'serve', testServer('cli-probe-server.mjs'), '--stdio'],
  }

  it('.mcp.json (mcpServers), with its env and --env on top', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'toolwire-config-'))
    writeFileSync(
      join(cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { probe: { ...entry, env: { A: 'from-file' } } } }),
    )
    const fromFile = await run(['call', 'probe', 'env', 'name=A', '--yes'], { cwd })
    expect(fromFile.code).toBe(0)
    expect(fromFile.stdout).toBe('A=from-file\n')
    const overridden = await run(['call', 'probe', 'env', 'name=A', '--yes', '--env', 'A=flag'], { cwd })
    expect(overridden.stdout).toBe('A=flag\n')
  })

  it('.vscode/mcp.json (servers, comments, ${workspaceFolder})', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'toolwire-config-'))
    mkdirSync(join(cwd, '.vscode'))
    const text = `{
      // VS Code allows comments
      "servers": { "probe": { "type": "stdio", "command": ${JSON.stringify(entry.command)},
        "args": ${JSON.stringify(entry.args)}, "env": { "W": "\${workspaceFolder}" } }, },
    }`
    writeFileSync(join(cwd, '.vscode', 'mcp.json'), text)
    const result = await run(['call', 'probe', 'env', 'name=W', '--yes'], { cwd })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`W=${cwd}\n`)
  })

  it("Claude Desktop's claude_desktop_config.json, and names in error messages and completion", async () => {
    const home = mkdtempSync(join(tmpdir(), 'toolwire-home-'))
    const cwd = mkdtempSync(join(tmpdir(), 'toolwire-cwd-'))
    mkdirSync(join(home, '.config', 'Claude'), { recursive: true })
    writeFileSync(
      join(home, '.config', 'Claude', 'claude_desktop_config.json'),
      JSON.stringify({ mcpServers: { github: entry } }),
    )
    const env = { HOME: home }
    const listed = await run(['list', 'github'], { cwd, env })
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^env$/m)
    const unknown = await run(['list', 'gitlab'], { cwd, env })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/configured: github/)
    const names = await run(['completion', '--servers'], { cwd, env })
    expect(names.stdout).toBe('github\n')
  })
})

describe('completion', () => {
  it.each(['bash', 'zsh', 'fish'])('prints a %s script naming every command', async (shell) => {
    const result = await run(['completion', shell])
    expect(result.code).toBe(0)
    for (const command of [
      'discover',
      'list',
      'call',
      'resources',
      'read',
      'prompts',
      'prompt',
      'completion',
    ]) {
      expect(result.stdout).toContain(command)
    }
  })

  it('the bash script is valid bash', async () => {
    const script = (await run(['completion', 'bash'])).stdout
    const checked = await new Promise<number>((resolve) => {
      const child = execFile('bash', ['-n'], (error) => resolve(error ? 1 : 0))
      child.stdin?.end(script)
    })
    expect(checked).toBe(0)
  })
})
