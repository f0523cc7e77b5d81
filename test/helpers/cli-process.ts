/**
 * Runs the built CLI (dist/cli/main.js) as a long-lived child process that prints the URL it listens on as its
 * first stdout line (`bridge --http`, `gateway`), and stops it again.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { CLI, ROOT } from './paths.js'

export interface RunningCli {
  /** The first line the process printed: the URL it listens on. */
  readonly url: string
  readonly child: ChildProcess
  /** Everything it wrote to stderr so far (its upstream's stderr included, which it passes through). */
  stderr(): string
}

/** Starts the CLI and resolves with the URL it prints once it listens; rejects if it exits or is silent 60 s. */
export function startCli(args: readonly string[]): Promise<RunningCli> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start: ${stderr}`)), 60_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${args[0]} exited (${code}): ${stderr}`))
    })
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer)
      resolve({ url: line.trim(), child, stderr: () => stderr })
    })
  })
}

/** Stops a started CLI with SIGTERM and waits for it to exit; nothing to do if it never started or has exited. */
export function stopCli(running: RunningCli | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    running.child.once('exit', () => resolve())
    running.child.kill('SIGTERM')
  })
}
