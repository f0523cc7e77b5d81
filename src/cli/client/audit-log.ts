/** `--audit-log <file>`: every tool call appended to a file as one JSON line (see client/audit.ts). */
import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { ToolCallAuditor } from '../../client/index.js'

export function auditLogFile(path: string): ToolCallAuditor {
  const file = resolve(path)
  mkdirSync(dirname(file), { recursive: true })
  // Synchronous: the CLI may exit right after the call, and the record must be on disk by then. Arguments
  // can be sensitive, so a new file is readable by its owner only.
  return (record) => appendFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 })
}
