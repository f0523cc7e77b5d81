/**
 * Sampling for the CLI: a server's `sampling/createMessage` request is handed to a command the user chose
 * (`--sampling-command`), as JSON on its stdin; the command prints the CreateMessageResult as JSON.
 * Without a command the CLI does not declare sampling, so servers see it is unavailable. The command runs
 * once at a time: a server that sends many requests at once waits for each (the client's gate refuses what
 * is past its in-flight cap), instead of starting a process per request.
 */
import { spawn } from 'node:child_process'
import type { CreateMessageResult } from '../../client/index.js'

const MAX_OUTPUT = 4 * 1024 * 1024

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
      const child = spawn(command, {
        shell: true,
        stdio: ['pipe', 'pipe', 'inherit'],
        signal: context.signal,
      })
      let out = ''
      child.stdout.setEncoding('utf8')
      child.stdout.on('data', (chunk: string) => {
        out += chunk
        if (out.length > MAX_OUTPUT) child.kill()
      })
      child.on('error', (error) =>
        reject(new SamplingCommandError(`sampling command failed: ${error.message}`)),
      )
      child.on('close', (code) => {
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
