/** Checks every line a stdio server writes against the MCP schema, next to the client that reads them. */
import type { ChildProcess } from 'node:child_process'
import { assertServerMessage } from './spec-schema.js'

export function tapStdio(child: ChildProcess): unknown[] {
  const problems: unknown[] = []
  let rest = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n')
    rest = lines.pop() ?? ''
    for (const line of lines) {
      if (line.trim() === '') continue
      try {
        assertServerMessage(JSON.parse(line))
      } catch (error) {
        problems.push(error)
      }
    }
  })
  return problems
}
