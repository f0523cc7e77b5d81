/**
 * The CLI on a first run (built dist/cli/main.js, real child processes): a mistyped command or a missing
 * module is one line, every command's help ends with examples, and the demo's banner prints commands that
 * work the way the demo was started.
 */
import { execFile, spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { howToRunCli } from '../src/cli/commands/serve.js'
import { COMMAND_EXAMPLES } from '../src/cli/examples.js'
import { CLI, ROOT } from './helpers/paths.js'

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}
const cli = (...args: string[]) => run(process.execPath, [CLI, ...args])

describe('mistakes are one line', () => {
  it('an unknown command: the error and the suggestion, not the whole help', async () => {
    const result = await cli('lsit')
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([
      "error: unknown command 'lsit'",
      '(Did you mean list?)',
    ])
    expect(result.stdout).toBe('')
  })

  it('serve of a missing module says so, without a stack', async () => {
    const result = await cli('serve', './missing.js')
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toMatch(
      /^toolwire: \.\/missing\.js: no such file \(looked for \/.*missing\.js\)\n$/,
    )
  })
})

describe('help', () => {
  const commands = ['serve', 'demo', 'discover', 'list', 'call', 'resources', 'read', 'prompts', 'prompt']
  const more = ['task', 'task get', 'task cancel', 'completion', 'login', 'logout', 'openapi', 'search']
  it.each([...commands, ...more])('toolwire %s --help ends with examples', async (command) => {
    const result = await cli(...command.split(' '), '--help')
    expect(result.code).toBe(0)
    const examples = COMMAND_EXAMPLES[command.split(' ').at(-1) as string] ?? []
    expect(examples.length).toBeGreaterThan(0)
    const [, block] = /\nExamples:\n((?: {2}\S.*\n)+)$/.exec(result.stdout) ?? []
    expect(block, result.stdout).toBeDefined()
    expect(block?.trimEnd().split('\n')).toHaveLength(examples.length)
    for (const [example] of examples) expect(result.stdout).toContain(example)
  })
})

describe("the demo's banner", () => {
  it('names the way it was started', () => {
    expect(howToRunCli({ npm_package_name: 'toolwire', npm_lifecycle_event: 'start' }, CLI)).toBe(
      'npm run -s cli --',
    )
    expect(howToRunCli({ npm_command: 'exec' }, '/home/me/.npm/_npx/1/node_modules/.bin/toolwire')).toBe(
      'npx toolwire',
    )
    expect(howToRunCli({}, '/project/node_modules/.bin/toolwire')).toBe('npx toolwire')
    expect(howToRunCli({}, '/usr/local/bin/toolwire')).toBe('toolwire')
    // Another project's `npm start` running an installed toolwire is not the repository's script.
    expect(
      howToRunCli({ npm_package_name: 'my-app', npm_lifecycle_event: 'start' }, '/usr/bin/toolwire'),
    ).toBe('toolwire')
  })

  it('started with node, prints a list command that works from where it was started', async () => {
    const demo = spawn(process.execPath, [CLI, 'demo', '--http', '127.0.0.1:0'], {
      cwd: ROOT,
      env: { ...process.env, npm_command: '', npm_lifecycle_event: '', npm_package_name: '' },
    })
    try {
      const banner = await new Promise<string>((resolve, reject) => {
        let seen = ''
        const timer = setTimeout(() => reject(new Error(`no banner: ${seen}`)), 30_000)
        demo.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          seen += chunk
          if (/countdown/.test(seen)) {
            clearTimeout(timer)
            resolve(seen)
          }
        })
      })
      expect(banner).not.toContain('npm run')
      const list = /^ {2}(node \S+main\.js) list (http:\S+)$/m.exec(banner)
      expect(list, banner).not.toBeNull()
      const [, command, url] = list as RegExpExecArray
      const listed = await run(process.execPath, [
        (command as string).slice('node '.length),
        'list',
        url as string,
      ])
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain('arithmetic')
    } finally {
      demo.kill('SIGTERM')
    }
  })
})
