/**
 * Durable task store on SQLite (better-sqlite3): tasks and their results survive a restart, and several
 * processes on one machine share them (WAL). Every change is a read-modify-write inside an IMMEDIATE
 * transaction, so two instances never both apply one transition. Node only: import it from `toolwire/sqlite`.
 */
import Database from 'better-sqlite3'
import type { OwnerKey } from '../protocol/principal.js'
import {
  applyAnswers,
  applyTransition,
  type TaskRecord,
  type TaskStore,
  type TaskTransition,
} from '../features/tasks/store.js'

export interface SqliteTaskStoreOptions {
  /** Clock, for tests (default Date.now). */
  readonly now?: () => number
  /** How often expired tasks are deleted (default 60 s); reads never return them anyway. */
  readonly sweepIntervalMs?: number
}

const LIVE = "status IN ('working', 'input_required')"

export class SqliteTaskStore implements TaskStore {
  readonly #db: Database.Database
  readonly #now: () => number
  readonly #timer: ReturnType<typeof setInterval>
  readonly #insert: Database.Statement
  readonly #countLive: Database.Statement
  readonly #select: Database.Statement
  readonly #write: Database.Statement
  readonly #sweep: Database.Statement

  /** `file` is a path (created when missing) or `:memory:`. */
  constructor(file: string, options: SqliteTaskStoreOptions = {}) {
    const db = (this.#db = new Database(file))
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('busy_timeout = 5000')
    db.exec(`
      CREATE TABLE IF NOT EXISTS toolwire_tasks (
        id TEXT PRIMARY KEY,
        principal TEXT NOT NULL,
        status TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        data TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS toolwire_tasks_principal ON toolwire_tasks (principal, status, expires_at);
      CREATE INDEX IF NOT EXISTS toolwire_tasks_expiry ON toolwire_tasks (expires_at);
    `)
    this.#now = options.now ?? Date.now
    this.#insert = db.prepare(
      'INSERT INTO toolwire_tasks (id, principal, status, expires_at, data) VALUES (?, ?, ?, ?, ?)',
    )
    this.#countLive = db
      .prepare(`SELECT count(*) FROM toolwire_tasks WHERE principal = ? AND expires_at > ? AND ${LIVE}`)
      .pluck()
    this.#select = db
      .prepare('SELECT data FROM toolwire_tasks WHERE id = ? AND principal = ? AND expires_at > ?')
      .pluck()
    this.#write = db.prepare('UPDATE toolwire_tasks SET status = ?, data = ? WHERE id = ?')
    this.#sweep = db.prepare('DELETE FROM toolwire_tasks WHERE expires_at <= ?')
    this.#timer = setInterval(() => this.#sweep.run(this.#now()), options.sweepIntervalMs ?? 60_000)
    this.#timer.unref()
  }

  create(record: TaskRecord, maxLive: number): Promise<boolean> {
    const now = this.#now()
    const insert = this.#db.transaction((): boolean => {
      if ((this.#countLive.get(record.owner, now) as number) >= maxLive) return false
      const expiresAt = record.createdAt + record.ttlMs
      this.#insert.run(record.taskId, record.owner, record.status, expiresAt, JSON.stringify(record))
      return true
    })
    return Promise.resolve(insert.immediate())
  }

  get(taskId: string, owner: OwnerKey): Promise<TaskRecord | undefined> {
    return Promise.resolve(this.#read(taskId, owner))
  }

  transition(taskId: string, owner: OwnerKey, change: TaskTransition): Promise<TaskRecord | undefined> {
    const run = this.#db.transaction((): TaskRecord | undefined => {
      const task = this.#read(taskId, owner)
      if (!task) return undefined
      const next = applyTransition(task, change, this.#now())
      if (next) this.#store(next)
      return next ?? task
    })
    return Promise.resolve(run.immediate())
  }

  answer(
    taskId: string,
    owner: OwnerKey,
    answers: Record<string, unknown>,
  ): Promise<{ task: TaskRecord; resume: boolean } | undefined> {
    const run = this.#db.transaction(() => {
      const task = this.#read(taskId, owner)
      if (!task) return undefined
      const outcome = applyAnswers(task, answers, this.#now())
      if (outcome.task !== task) this.#store(outcome.task)
      return outcome
    })
    return Promise.resolve(run.immediate())
  }

  close(): Promise<void> {
    clearInterval(this.#timer)
    this.#db.close()
    return Promise.resolve()
  }

  #read(taskId: string, owner: OwnerKey): TaskRecord | undefined {
    const data = this.#select.get(taskId, owner, this.#now()) as string | undefined
    return data === undefined ? undefined : (JSON.parse(data) as TaskRecord)
  }

  #store(task: TaskRecord): void {
    this.#write.run(task.status, JSON.stringify(task), task.taskId)
  }
}
