/**
 * Runs a command in a real pseudo-terminal (util-linux `script`), so the CLI sees a TTY: tests wait for
 * text on the screen and type keys. `script` comes with every Debian and Ubuntu system (bsdutils is an
 * essential package); where it is missing or is another `script` (BSD, macOS), `noTerminal` says why and
 * the terminal tests are skipped. A pty from npm (node-pty) would need a native build on Linux.
 */
import { spawn, spawnSync } from 'node:child_process'

/** Why terminal tests cannot run here, or `undefined` when util-linux `script` is available. */
export const noTerminal: string | undefined = (() => {
  const probe = spawnSync('script', ['--version'], { encoding: 'utf8', timeout: 10_000 })
  if (probe.error) return `util-linux "script" is not installed (${probe.error.message})`
  return /util-linux/.test(`${probe.stdout}${probe.stderr}`)
    ? undefined
    : '"script" is not the util-linux one (install util-linux)'
})()

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r/g

export interface Terminal {
  /** Everything printed so far, without escape sequences. */
  screen(): string
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<void>
  type(keys: string): void
  readonly exited: Promise<number>
}

export const KEY = { enter: '\r', down: '\x1b[B', up: '\x1b[A', space: ' ' }

const quote = (arg: string): string => `'${arg.replaceAll("'", "'\\''")}'`

export function runInTerminal(args: readonly string[], cwd: string): Terminal {
  const command = `stty cols 120 rows 50; exec ${args.map(quote).join(' ')}`
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd,
    env: { ...process.env, TERM: 'xterm-256color', NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let raw = ''
  child.stdout.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')))
  const exited = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? -1)))
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  void exited.then(() => clearTimeout(killer))
  const screen = (): string => raw.replace(ANSI, '')
  return {
    screen,
    exited,
    type: (keys) => void child.stdin.write(keys),
    waitFor: async (pattern, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs
      const matches = (): boolean =>
        typeof pattern === 'string' ? screen().includes(pattern) : pattern.test(screen())
      while (!matches()) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${String(pattern)}; screen:\n${screen()}`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
  }
}
