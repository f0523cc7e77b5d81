/** The default task store: one process, in memory; tasks vanish on restart (use SQLite or Redis to keep them). */
import type { OwnerKey } from '../../protocol/principal.js'
import {
  applyAnswers,
  applyTransition,
  TERMINAL,
  type TaskRecord,
  type TaskStore,
  type TaskTransition,
} from './store.js'

export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>()
  readonly #now: () => number

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now
  }

  create(record: TaskRecord, maxLive: number): Promise<boolean> {
    this.#sweep()
    let live = 0
    for (const task of this.#tasks.values())
      if (task.owner === record.owner && !TERMINAL.has(task.status)) live++
    if (live >= maxLive) return Promise.resolve(false)
    this.#tasks.set(record.taskId, structuredClone(record))
    return Promise.resolve(true)
  }

  get(taskId: string, owner: OwnerKey): Promise<TaskRecord | undefined> {
    const task = this.#find(taskId, owner)
    return Promise.resolve(task && structuredClone(task))
  }

  transition(taskId: string, owner: OwnerKey, change: TaskTransition): Promise<TaskRecord | undefined> {
    const task = this.#find(taskId, owner)
    if (!task) return Promise.resolve(undefined)
    const next = applyTransition(task, change, this.#now())
    if (next) this.#tasks.set(taskId, next)
    return Promise.resolve(structuredClone(next ?? task))
  }

  answer(
    taskId: string,
    owner: OwnerKey,
    answers: Record<string, unknown>,
  ): Promise<{ task: TaskRecord; resume: boolean } | undefined> {
    const task = this.#find(taskId, owner)
    if (!task) return Promise.resolve(undefined)
    const outcome = applyAnswers(task, structuredClone(answers), this.#now())
    this.#tasks.set(taskId, outcome.task)
    return Promise.resolve({ task: structuredClone(outcome.task), resume: outcome.resume })
  }

  #find(taskId: string, owner: OwnerKey): TaskRecord | undefined {
    const task = this.#tasks.get(taskId)
    if (!task) return undefined
    if (task.createdAt + task.ttlMs <= this.#now()) {
      this.#tasks.delete(taskId)
      return undefined
    }
    return task.owner === owner ? task : undefined
  }

  /** Drops expired tasks; runs on creation so memory stays bounded by the live cap and the TTLs. */
  #sweep(): void {
    const now = this.#now()
    for (const [id, task] of this.#tasks) if (task.createdAt + task.ttlMs <= now) this.#tasks.delete(id)
  }
}
