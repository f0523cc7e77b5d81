/**
 * Sampling for the CLI: a server's `sampling/createMessage` request is handed to a command the user chose
 * (`--sampling-command`), as JSON on its stdin; the command prints the CreateMessageResult as JSON.
 * Without a command the CLI does not declare sampling, so servers see it is unavailable. The command runs
 * once at a time: a server that sends many requests at once waits for each (the client's gate refuses what
 * is past its in-flight cap), instead of starting a process per request.
 *
 * A request is cancelled (its signal aborts) when the call that carried it ends or the client closes: one still
 * queued never starts, and a running command is stopped with its whole process group (a shell command's own
 * children too), SIGTERM then SIGKILL after a grace period. Otherwise the CLI would wait, after printing its
 * result, for commands whose answers nobody reads.
 */
import { spawn } from 'node:child_process'
import type { CreateMessageResult } from '../../client/index.js'
import { OWN_GROUP, ProcessGroup } from '../../client/process-group.js'

const MAX_OUTPUT = 4 * 1024 * 1024
/** How long a cancelled command's group has to end on SIGTERM before it gets SIGKILL. */
const GRACE_MS = 2_000

export class SamplingCommandError extends Error {
  override readonly name = 'SamplingCommandError'
}

type Sampler = (
  params: Record<string, unknown>,
  context: { signal: AbortSignal },
) => Promise<CreateMessageResult>

export function samplingCommand(command: string): Sampler {
  const run = runCommand(command)
  let previous: Promise<unknown> = Promise.resolve()
  return (params, context) => {
    const turn = previous.then(() => run(params, context))
    previous = turn.catch(() => undefined)
    return turn
  }
}

function runCommand(command: string): Sampler {
  return (params, context) =>
    new Promise((resolve, reject) => {
      const signal = context.signal
      if (signal.aborted) return reject(new SamplingCommandError(`sampling cancelled: ${reasonOf(signal)}`))
      const child = spawn(command, {
        shell: true,
        stdio: ['pipe', 'pipe', 'inherit'],
        detached: OWN_GROUP,
      })
      const group = new ProcessGroup(child)
      const stop = (): void => {
        group.signal('SIGTERM')
        void group.ended(GRACE_MS).then((ended) => ended || group.killNow())
      }
      signal.addEventListener('abort', stop, { once: true })
      let out = ''
      child.stdout.setEncoding('utf8')
      child.stdout.on('data', (chunk: string) => {
        out += chunk
        if (out.length > MAX_OUTPUT) stop()
      })
      child.on('error', (error) =>
        reject(new SamplingCommandError(`sampling command failed: ${error.message}`)),
      )
      child.on('close', (code) => {
        signal.removeEventListener('abort', stop)
        group.alive() // forgets the group once it is gone; one left running is killed when the CLI exits
        if (signal.aborted) return reject(new SamplingCommandError(`sampling cancelled: ${reasonOf(signal)}`))
        if (code !== 0)
          return reject(new SamplingCommandError(`sampling command exited with ${String(code)}`))
        try {
          const result = JSON.parse(out) as CreateMessageResult
          if (typeof result.model !== 'string' || (result.role !== 'assistant' && result.role !== 'user')) {
            throw new Error('it needs role, content and model')
          }
          resolve(result)
        } catch (error) {
          reject(
            new SamplingCommandError(
              `sampling command printed no CreateMessageResult JSON (${(error as Error).message})`,
            ),
          )
        }
      })
      child.stdin.on('error', () => undefined) // a command that ignores its input
      child.stdin.end(JSON.stringify(params))
    })
}

const reasonOf = (signal: AbortSignal): string =>
  signal.reason instanceof Error ? signal.reason.message : String(signal.reason)
