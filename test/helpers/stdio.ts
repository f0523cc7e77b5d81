/** Drives a real stdio server child process: write JSON-RPC lines, collect and schema-check what comes back. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { CLI } from './paths.js'
import { assertServerMessage } from './spec-schema.js'

export { CLI }

export class StdioPeer {
  readonly child: ChildProcessWithoutNullStreams
  readonly messages: Record<string, unknown>[] = []
  stderr = ''
  #buffer = ''
  #waiters: {
    test: (m: Record<string, unknown>) => boolean
    resolve: (m: Record<string, unknown>) => void
  }[] = []
  readonly #methods = new Map<unknown, string>()
  readonly exited: Promise<number | null>

  /** Runs `entry` (by default the toolwire CLI) with `args` on this Node. */
  constructor(args: string[], env: Record<string, string> = {}, entry = CLI) {
    this.child = spawn(process.execPath, [entry, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' })
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)))
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk))
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.#buffer += chunk
      let index: number
      while ((index = this.#buffer.indexOf('\n')) !== -1) {
        const line = this.#buffer.slice(0, index)
        this.#buffer = this.#buffer.slice(index + 1)
        const message = JSON.parse(line) as Record<string, unknown>
        assertServerMessage(message, this.#methods.get(message.id))
        this.messages.push(message)
        this.#waiters = this.#waiters.filter((w) => (w.test(message) ? (w.resolve(message), false) : true))
      }
    })
  }

  send(message: Record<string, unknown>): void {
    if ('id' in message && typeof message.method === 'string') this.#methods.set(message.id, message.method)
    this.child.stdin.write(`${JSON.stringify(message)}\n`)
  }

  writeRaw(text: string | Buffer): void {
    this.child.stdin.write(text)
  }

  next(test: (m: Record<string, unknown>) => boolean, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    const found = this.messages.find(test)
    if (found) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching message within ${timeoutMs} ms`)),
        timeoutMs,
      )
      this.#waiters.push({ test, resolve: (m) => (clearTimeout(timer), resolve(m)) })
    })
  }

  /** Waits for the first message matching `test` and removes it, so the next take finds the one after. */
  async take(
    test: (m: Record<string, unknown>) => boolean,
    timeoutMs = 10_000,
  ): Promise<Record<string, unknown>> {
    const message = await this.next(test, timeoutMs)
    this.messages.splice(this.messages.indexOf(message), 1)
    return message
  }

  response(id: unknown, timeoutMs?: number): Promise<Record<string, unknown>> {
    return this.next((m) => m.id === id && ('result' in m || 'error' in m), timeoutMs)
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGKILL')
    await this.exited
  }
}
