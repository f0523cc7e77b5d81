/**
 * Where tasks live between polls (extensions/tasks §Task lifecycle). A store must make a created task
 * readable at once ("durably created" before the handle is returned), apply every change atomically, and
 * forget a task once its `ttlMs` has passed. Tasks are looked up by id and principal together, so another
 * principal's task id reads exactly like an unknown one.
 */
import type { InputRequest } from '../../wire/types.js'
import type { OwnerKey, Principal } from '../../protocol/principal.js'
import type { UpstreamTaskRef } from './relayed.js'

export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const
export type TaskStatus = (typeof TASK_STATUSES)[number]
export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled'])

/**
 * The identity a task runs under again when it is started or resumed in the background: everything a
 * direct call by the same caller would see in `ctx.auth` and `ctx.principal`, but never the token itself.
 */
export interface TaskIdentity {
  readonly principal: Principal
  readonly auth?: TaskAuth
  /** The creator's address, so what an anonymous run owns is filed like the direct call's. */
  readonly address?: string
}

/** `AuthInfo` without the bearer token. */
export interface TaskAuth {
  readonly subject: string
  readonly subjectKind?: 'user' | 'client'
  readonly scopes: readonly string[]
  readonly clientId?: string
  readonly expiresAt?: number
  readonly claims?: Readonly<Record<string, unknown>>
}

export interface TaskRecord {
  readonly taskId: string
  /** `ownerKey` of the principal that created it: only that principal can read, answer or cancel it. */
  readonly owner: OwnerKey
  readonly identity: TaskIdentity
  readonly tool: string
  readonly arguments: Record<string, unknown>
  /** The creating request's `_meta` (client capabilities, log level), reused on every resumption. */
  readonly meta: Record<string, unknown>
  /**
   * With telemetry on: the creating request's span context (`traceparent`, `tracestate`, `baggage`), so
   * every run of the task, on any instance, continues that trace.
   */
  readonly trace?: Record<string, string>
  status: TaskStatus
  statusMessage?: string
  /** Epoch milliseconds. */
  readonly createdAt: number
  lastUpdatedAt: number
  readonly ttlMs: number
  readonly pollIntervalMs: number
  /** Every answer the client gave so far, keyed like the input requests. */
  answers: Record<string, unknown>
  /** The questions still open while `input_required`. */
  inputRequests?: Record<string, InputRequest>
  /** The tool result once `completed`. */
  result?: Record<string, unknown>
  /** The JSON-RPC error once `failed`. */
  error?: { code: number; message: string; data?: unknown }
  /** Set when the task stands for an upstream server's task (a proxy's): relayed, never run here. */
  readonly upstream?: UpstreamTaskRef
}

/** A change applied only when the task is still in one of `from`. */
export interface TaskTransition {
  readonly from: readonly TaskStatus[]
  readonly to: TaskStatus
  readonly set?: Partial<Pick<TaskRecord, 'statusMessage' | 'inputRequests' | 'result' | 'error'>>
}

/** What one principal may keep in a task store at once. */
export interface TaskLimits {
  /** Unfinished tasks (working or waiting for input). */
  readonly maxLive: number
  /** Tasks stored until their `ttlMs` passes, finished ones included. */
  readonly maxStored: number
  /** UTF-8 bytes of those tasks as stored (JSON): arguments while the task may still run, then results. */
  readonly maxStoredBytes: number
}

/** `created`, or which limit refused the task. */
export type CreateOutcome = 'created' | 'live' | 'stored' | 'bytes'

/**
 * Where tasks live. `MemoryTaskStore` (default), `SqliteTaskStore` and `RedisTaskStore` implement it; implement it to keep tasks elsewhere.
 *
 * @example
 * ```ts
 * const server = defineServer({ name: 'reports', version: '1.0.0', tasks: { store: new SqliteTaskStore('tasks.db') } })
 * ```
 */
export interface TaskStore {
  /**
   * Stores a new task unless its owner would go past one of `limits`. Costs the same however many tasks
   * are stored: stores keep per-owner counts instead of scanning.
   */
  create(record: TaskRecord, limits: TaskLimits): Promise<CreateOutcome>
  /** The task, or undefined when it is unknown, expired or another principal's. */
  get(taskId: string, owner: OwnerKey): Promise<TaskRecord | undefined>
  /** Applies `change` atomically when the status allows it; returns the task as it is afterwards. */
  transition(taskId: string, owner: OwnerKey, change: TaskTransition): Promise<TaskRecord | undefined>
  /**
   * Records answers to open input requests (unknown keys are ignored). When none is left open the task goes
   * back to `working`; `resume` is true exactly once, for the caller that closed the last question.
   */
  answer(
    taskId: string,
    owner: OwnerKey,
    answers: Record<string, unknown>,
  ): Promise<{ task: TaskRecord; resume: boolean } | undefined>
  close?(): Promise<void>
}

/** Applies a transition to a copy; undefined when the status does not allow it. Shared by the stores. */
export function applyTransition(
  task: TaskRecord,
  change: TaskTransition,
  now: number,
): TaskRecord | undefined {
  if (!change.from.includes(task.status)) return undefined
  const next: TaskRecord = { ...task, ...change.set, status: change.to, lastUpdatedAt: now }
  if (change.to !== 'input_required') delete next.inputRequests
  // A finished task never runs again: its arguments, answers and request `_meta` were kept only to replay
  // the handler, so they stop taking room (and counting against the owner's bytes) here.
  return TERMINAL.has(change.to) ? { ...next, arguments: {}, answers: {}, meta: {} } : next
}

/** How many bytes `text` takes in UTF-8, without encoding it (stores count records as they keep them). */
export function utf8Length(text: string): number {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) continue
    if (code < 0x800) bytes += 1
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: 2 UTF-16 units, 4 UTF-8 bytes.
      bytes += 2
      i++
    } else bytes += 2
  }
  return bytes
}

/** Merges answers into a copy; `resume` when the last open question was answered now. */
export function applyAnswers(
  task: TaskRecord,
  answers: Record<string, unknown>,
  now: number,
): { task: TaskRecord; resume: boolean } {
  if (task.status !== 'input_required' || !task.inputRequests) return { task, resume: false }
  const open = { ...task.inputRequests }
  const merged = { ...task.answers }
  let changed = false
  for (const [key, value] of Object.entries(answers)) {
    if (!Object.hasOwn(open, key)) continue
    merged[key] = value
    delete open[key]
    changed = true
  }
  if (!changed) return { task, resume: false }
  const next: TaskRecord = { ...task, answers: merged, inputRequests: open, lastUpdatedAt: now }
  if (Object.keys(open).length > 0) return { task: next, resume: false }
  next.status = 'working'
  delete next.inputRequests
  return { task: next, resume: true }
}
