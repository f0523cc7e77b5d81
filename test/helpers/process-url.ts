/** Starts a server process that prints `LISTENING <url>`, waits for that line, and stops it by PID. */
import { spawn, type ChildProcess } from 'node:child_process'

export interface UrlProcess {
  readonly url: string
  readonly child: ChildProcess
  /** stderr so far, for failure messages. */
  stderr(): string
  stop(): Promise<void>
}

export async function startUrlProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv | undefined; deadlineMs?: number },
): Promise<UrlProcess> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(killer)
  }
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${command} printed no URL in time; stderr: ${err}`)),
        options.deadlineMs ?? 60_000,
      )
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const match = /LISTENING (\S+)/.exec(out)
        if (match?.[1]) {
          clearTimeout(timer)
          resolve(match[1])
        }
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`${command} exited with ${String(code)} before listening; stderr: ${err}`))
      })
      child.once('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
    })
    return { url, child, stderr: () => err, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
