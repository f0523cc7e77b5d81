/** The default task store: one process, in memory; tasks vanish on restart (use SQLite or Redis to keep them). */
import type { OwnerKey } from '../../protocol/principal.js'
import {
  applyAnswers,
  applyTransition,
  type CreateOutcome,
  TERMINAL,
  type TaskLimits,
  type TaskRecord,
  type TaskStore,
  type TaskTransition,
  utf8Length,
} from './store.js'

/** A task as kept: its JSON (the same bytes the other stores keep and count), and what the tallies need. */
interface Entry {
  json: string
  bytes: number
  live: boolean
  readonly owner: OwnerKey
  readonly expiresAt: number
}

/** One owner's stored tasks, counted as they change so creating a task never scans the store. */
interface Tally {
  readonly ids: Set<string>
  live: number
  bytes: number
}

export interface MemoryTaskStoreOptions {
  /** Clock, for tests (default Date.now). */
  readonly now?: () => number
  /** How often expired tasks of every owner are dropped (default 60 s); reads never return them anyway. */
  readonly sweepIntervalMs?: number
}

/**
 * Keeps tasks in memory, in this process (the default store; use `toolwire/sqlite` or `toolwire/redis` to share or keep them).
 *
 * @example
 * ```ts
 * const server = defineServer({
 *   name: 'reports',
 *   version: '1.0.0',
 *   tasks: { store: new MemoryTaskStore() },
 * })
 * ```
 */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Entry>()
  readonly #owners = new Map<OwnerKey, Tally>()
  readonly #now: () => number
  readonly #sweepIntervalMs: number
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#now = options.now ?? Date.now
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000
  }

  /** How many tasks are kept now, expired ones not yet swept included (for tests and metrics). */
  get size(): number {
    return this.#tasks.size
  }

  create(record: TaskRecord, limits: TaskLimits): Promise<CreateOutcome> {
    // The sweep starts with the first task, never at construction: a store made at a Worker's top level
    // must not start a timer there.
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.sweep(), this.#sweepIntervalMs)
      ;(this.#timer as { unref?: () => void }).unref?.()
    }
    const json = JSON.stringify(record)
    const bytes = utf8Length(json)
    let refused = this.#refusal(record.owner, bytes, limits)
    if (refused) {
      // Only an owner at a limit pays for looking at its own tasks (at most `maxStored`), never anyone else's.
      this.#sweepOwner(record.owner)
      refused = this.#refusal(record.owner, bytes, limits)
      if (refused) return Promise.resolve(refused)
    }
    if (this.#tasks.has(record.taskId)) throw new Error('task id collision')
    const live = !TERMINAL.has(record.status)
    this.#tasks.set(record.taskId, {
      json,
      bytes,
      live,
      owner: record.owner,
      expiresAt: record.createdAt + record.ttlMs,
    })
    let tally = this.#owners.get(record.owner)
    if (!tally) this.#owners.set(record.owner, (tally = { ids: new Set(), live: 0, bytes: 0 }))
    tally.ids.add(record.taskId)
    tally.bytes += bytes
    if (live) tally.live++
    return Promise.resolve('created')
  }

  get(taskId: string, owner: OwnerKey): Promise<TaskRecord | undefined> {
    const entry = this.#find(taskId, owner)
    return Promise.resolve(entry && (JSON.parse(entry.json) as TaskRecord))
  }

  transition(taskId: string, owner: OwnerKey, change: TaskTransition): Promise<TaskRecord | undefined> {
    const entry = this.#find(taskId, owner)
    if (!entry) return Promise.resolve(undefined)
    const task = JSON.parse(entry.json) as TaskRecord
    const next = applyTransition(task, change, this.#now())
    if (next) this.#write(entry, next)
    return Promise.resolve(next ?? task)
  }

  answer(
    taskId: string,
    owner: OwnerKey,
    answers: Record<string, unknown>,
  ): Promise<{ task: TaskRecord; resume: boolean } | undefined> {
    const entry = this.#find(taskId, owner)
    if (!entry) return Promise.resolve(undefined)
    const task = JSON.parse(entry.json) as TaskRecord
    const outcome = applyAnswers(task, structuredClone(answers), this.#now())
    if (outcome.task !== task) this.#write(entry, outcome.task)
    return Promise.resolve({ task: structuredClone(outcome.task), resume: outcome.resume })
  }

  /** Drops every expired task; returns how many. Runs on a timer too. */
  sweep(): number {
    const now = this.#now()
    let dropped = 0
    for (const [id, entry] of this.#tasks)
      if (entry.expiresAt <= now) {
        this.#remove(id, entry)
        dropped++
      }
    return dropped
  }

  close(): Promise<void> {
    clearInterval(this.#timer)
    return Promise.resolve()
  }

  #refusal(
    owner: OwnerKey,
    bytes: number,
    limits: TaskLimits,
  ): Exclude<CreateOutcome, 'created'> | undefined {
    const tally = this.#owners.get(owner)
    if ((tally?.live ?? 0) >= limits.maxLive) return 'live'
    if ((tally?.ids.size ?? 0) >= limits.maxStored) return 'stored'
    if ((tally?.bytes ?? 0) + bytes > limits.maxStoredBytes) return 'bytes'
    return undefined
  }

  #write(entry: Entry, next: TaskRecord): void {
    const tally = this.#owners.get(entry.owner)
    const json = JSON.stringify(next)
    const bytes = utf8Length(json)
    const live = !TERMINAL.has(next.status)
    if (tally) {
      tally.bytes += bytes - entry.bytes
      tally.live += Number(live) - Number(entry.live)
    }
    Object.assign(entry, { json, bytes, live })
  }

  #find(taskId: string, owner: OwnerKey): Entry | undefined {
    const entry = this.#tasks.get(taskId)
    if (!entry) return undefined
    if (entry.expiresAt <= this.#now()) {
      this.#remove(taskId, entry)
      return undefined
    }
    return entry.owner === owner ? entry : undefined
  }

  #sweepOwner(owner: OwnerKey): void {
    const tally = this.#owners.get(owner)
    if (!tally) return
    const now = this.#now()
    for (const id of tally.ids) {
      const entry = this.#tasks.get(id)
      if (entry && entry.expiresAt <= now) this.#remove(id, entry)
    }
  }

  #remove(taskId: string, entry: Entry): void {
    this.#tasks.delete(taskId)
    const tally = this.#owners.get(entry.owner)
    if (!tally) return
    tally.ids.delete(taskId)
    tally.bytes -= entry.bytes
    if (entry.live) tally.live--
    if (tally.ids.size === 0) this.#owners.delete(entry.owner)
  }
}
